// functional::max_pool2d / avg_pool2d / adaptive_avg_pool2d with their backward nodes.
// All three slide a window over each [H, W] plane of x [N, C, H, W]; they differ in what they
// keep: the position of the max (its gradient goes there alone), or nothing (the gradient is
// spread evenly over the window).
#include <cmath>
#include <limits>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/checks.hpp"
#include "kindling/autograd/function.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional {

namespace {

struct PoolGeom {
  std::int64_t planes, h, w;  // planes = N·C
  std::int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  std::int64_t oh, ow;
  bool ceil_mode = false, count_include_pad = true;
};

// PyTorch's pooling_output_shape: floor (or ceil) of the window count, and with ceil_mode the last
// window must still start inside the input or its left padding.
std::int64_t pool_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t d, bool ceil) {
  const std::int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
  std::int64_t out = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

PoolGeom make_geom(const char* op, const Tensor& x, IntPair k, IntPair s, IntPair p, IntPair d, bool ceil) {
  if (x.dim() != 4) throw ShapeError(std::string(op) + ": expected a 4-D input [N, C, H, W] but got " + shape_str(x.shape()));
  detail::check_floating(op, "input", x);
  kindling::detail::check_cpu(x, op);
  if (s.h == 0 && s.w == 0) s = k;  // stride defaults to the kernel size
  if (k.h < 1 || k.w < 1 || s.h < 1 || s.w < 1 || d.h < 1 || d.w < 1 || p.h < 0 || p.w < 0) {
    throw ValueError(std::string(op) + ": kernel_size " + k.str(true) + ", stride " + s.str(true) + " and dilation " +
                     d.str(true) + " must be positive, padding " + p.str(true) + " non-negative");
  }
  if (p.h > k.h / 2 || p.w > k.w / 2) {
    throw ValueError(std::string(op) + ": pad should be at most half of the kernel size, but got padding " +
                     p.str(true) + " with kernel_size " + k.str(true));
  }
  PoolGeom g{x.size(0) * x.size(1), x.size(2), x.size(3), k.h, k.w, s.h, s.w, p.h, p.w, d.h, d.w, 0, 0, ceil, true};
  g.oh = pool_out(g.h, g.kh, g.sh, g.ph, g.dh, ceil);
  g.ow = pool_out(g.w, g.kw, g.sw, g.pw, g.dw, ceil);
  if (g.oh < 1 || g.ow < 1) {
    throw ShapeError(std::string(op) + ": input " + shape_str(x.shape()) + " is too small for kernel_size " + k.str(true) +
                     " (output would be " + std::to_string(g.oh) + "x" + std::to_string(g.ow) + ")");
  }
  return g;
}

// ---- max --------------------------------------------------------------------------------------
template <class T> void max_forward(const T* x, const PoolGeom& g, T* out, std::int64_t* idx) {
  for (std::int64_t pl = 0; pl < g.planes; ++pl) {
    const T* xp = x + pl * g.h * g.w;
    for (std::int64_t oy = 0; oy < g.oh; ++oy)
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        T best = -std::numeric_limits<T>::infinity();
        std::int64_t best_i = -1;
        for (std::int64_t i = 0; i < g.kh; ++i) {
          const std::int64_t iy = oy * g.sh - g.ph + i * g.dh;
          if (iy < 0 || iy >= g.h) continue;
          for (std::int64_t j = 0; j < g.kw; ++j) {
            const std::int64_t ix = ox * g.sw - g.pw + j * g.dw;
            if (ix < 0 || ix >= g.w) continue;
            const T v = xp[iy * g.w + ix];
            // Like PyTorch's kernel: a NaN always takes over (so the *last* NaN of the window wins),
            // a number only when strictly bigger (so the first of tied maxima wins).
            if (best_i < 0 || v > best || std::isnan(v)) {
              best = v;
              best_i = iy * g.w + ix;
            }
          }
        }
        const std::int64_t o = (pl * g.oh + oy) * g.ow + ox;
        out[o] = best;
        idx[o] = best_i;
      }
  }
}

// The CNN's pool -- 2x2 windows, stride 2, no padding, no dilation -- without the general loop's
// bounds checks and early exit: every window is the four values a b / c d, visited in the general
// loop's order, so it keeps its exact rule (PyTorch's): the last NaN wins, else the first strict
// maximum. Written with selects only, the loop over a row of windows vectorises.
bool is_2x2(const PoolGeom& g) {
  return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1 &&
         g.oh == g.h / 2 && g.ow == g.w / 2;
}

template <class T> void max_forward_2x2(const T* x, const PoolGeom& g, T* __restrict out, std::int64_t* __restrict idx) {
  for (std::int64_t pl = 0; pl < g.planes; ++pl)
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      const T* r0 = x + (pl * g.h + 2 * oy) * g.w;  // the window's two input rows
      const T* r1 = r0 + g.w;
      T* o = out + (pl * g.oh + oy) * g.ow;
      std::int64_t* io = idx + (pl * g.oh + oy) * g.ow;
      const std::int64_t top = 2 * oy * g.w;  // flat index of r0 in its plane
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        const T v[4] = {r0[2 * ox], r0[2 * ox + 1], r1[2 * ox], r1[2 * ox + 1]};
        const std::int64_t at[4] = {top + 2 * ox, top + 2 * ox + 1, top + g.w + 2 * ox, top + g.w + 2 * ox + 1};
        T best = v[0];
        std::int64_t bi = at[0];
        for (int k = 1; k < 4; ++k) {
          const bool take = v[k] > best || v[k] != v[k];
          best = take ? v[k] : best;
          bi = take ? at[k] : bi;
        }
        o[ox] = best;
        io[ox] = bi;
      }
    }
}

// max_pool2d: out = the max of each window, idx = where it was      dx[idx] += g (one winner per window)
struct MaxPool2d : autograd::Function<MaxPool2d> {
  static constexpr const char* name = "MaxPool2DWithIndicesBackward0";
  static constexpr bool once_differentiable = true;  // the backward is a kernel, not tensor ops
  Shape in_shape;
  DType dtype = kFloat32;
  PoolGeom g{};

  Tensor forward(autograd::Context& ctx, const Tensor& x4, const PoolGeom& geom) {
    g = geom;
    in_shape = x4.shape();
    dtype = x4.dtype();
    const Tensor x = kindling::detail::contiguous_copy(x4);
    const Shape out_shape{x.size(0), x.size(1), g.oh, g.ow};
    Tensor out = kindling::detail::make_tensor(out_shape, x.dtype(), x.device());
    // int64 [N, C, oh, ow]: flat position of the max inside its [H, W] plane
    Tensor idx = kindling::detail::make_tensor(out_shape, kInt64, x.device());
    kindling::detail::dispatch_floating(x.dtype(), "max_pool2d", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (is_2x2(g)) max_forward_2x2<T>(x.data_ptr<T>(), g, out.data_ptr<T>(), idx.data_ptr<std::int64_t>());
      else max_forward<T>(x.data_ptr<T>(), g, out.data_ptr<T>(), idx.data_ptr<std::int64_t>());
    });
    ctx.save_for_backward({idx});
    return out;
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor idx = ctx.saved(0);
    const Tensor go = kindling::detail::contiguous_copy(grads[0].to(dtype));
    // 2x2 windows that tile the whole input: every input position is in exactly one window, so
    // each is written once -- g where it won, else 0 -- with no zero-fill first. (T(0) + g, not g:
    // the same value the general path's 0 += g gives, -0.0 included.)
    if (is_2x2(g) && g.h % 2 == 0 && g.w % 2 == 0) {
      Tensor dx = kindling::detail::make_tensor(in_shape, dtype, go.device());
      kindling::detail::dispatch_floating(dtype, "max_pool2d backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* gp = go.data_ptr<T>();
        const std::int64_t* ip = idx.data_ptr<std::int64_t>();
        T* d = dx.data_ptr<T>();
        for (std::int64_t pl = 0; pl < g.planes; ++pl)
          for (std::int64_t oy = 0; oy < g.oh; ++oy) {
            T* r0 = d + (pl * g.h + 2 * oy) * g.w;
            T* r1 = r0 + g.w;
            const T* go_row = gp + (pl * g.oh + oy) * g.ow;
            const std::int64_t* i_row = ip + (pl * g.oh + oy) * g.ow;
            const std::int64_t top = 2 * oy * g.w;
            for (std::int64_t ox = 0; ox < g.ow; ++ox) {
              const T v = T(0) + go_row[ox];
              const std::int64_t w = i_row[ox], a = top + 2 * ox, c = a + g.w;
              r0[2 * ox] = w == a ? v : T(0);
              r0[2 * ox + 1] = w == a + 1 ? v : T(0);
              r1[2 * ox] = w == c ? v : T(0);
              r1[2 * ox + 1] = w == c + 1 ? v : T(0);
            }
          }
      });
      return {dx};
    }
    Tensor dx = zeros(in_shape, {.dtype = dtype});
    kindling::detail::dispatch_floating(dtype, "max_pool2d backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* gp = go.data_ptr<T>();
      const std::int64_t* ip = idx.data_ptr<std::int64_t>();
      T* d = dx.data_ptr<T>();
      const std::int64_t per_plane = g.oh * g.ow;
      // Each output's gradient goes to the one input position that won the max.
      for (std::int64_t pl = 0; pl < g.planes; ++pl)
        for (std::int64_t o = 0; o < per_plane; ++o) {
          const std::int64_t k = pl * per_plane + o;
          if (ip[k] >= 0) d[pl * g.h * g.w + ip[k]] += gp[k];
        }
    });
    return {dx};
  }
};

// ---- average (fixed windows and adaptive windows share one kernel) ------------------------------
// For output (oy, ox): rows [y0, y1), cols [x0, x1) of the input, divided by `div`.
struct Window {
  std::int64_t y0, y1, x0, x1;
  double div;
};

Window avg_window(const PoolGeom& g, std::int64_t oy, std::int64_t ox) {
  std::int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  std::int64_t y1 = std::min(y0 + g.kh, g.h + g.ph), x1 = std::min(x0 + g.kw, g.w + g.pw);
  const std::int64_t pool_size = (y1 - y0) * (x1 - x0);
  y0 = std::max<std::int64_t>(y0, 0);
  x0 = std::max<std::int64_t>(x0, 0);
  y1 = std::min(y1, g.h);
  x1 = std::min(x1, g.w);
  const std::int64_t inside = (y1 - y0) * (x1 - x0);
  return {y0, y1, x0, x1, static_cast<double>(g.count_include_pad ? pool_size : inside)};
}

Window adaptive_window(const PoolGeom& g, std::int64_t oy, std::int64_t ox) {
  // start = floor(o·I/O), end = ceil((o+1)·I/O): windows cover the input and may overlap by one.
  const std::int64_t y0 = (oy * g.h) / g.oh, y1 = ((oy + 1) * g.h + g.oh - 1) / g.oh;
  const std::int64_t x0 = (ox * g.w) / g.ow, x1 = ((ox + 1) * g.w + g.ow - 1) / g.ow;
  return {y0, y1, x0, x1, static_cast<double>((y1 - y0) * (x1 - x0))};
}

template <class T, class WinFn> void avg_forward(const T* x, const PoolGeom& g, T* out, WinFn win) {
  for (std::int64_t pl = 0; pl < g.planes; ++pl) {
    const T* xp = x + pl * g.h * g.w;
    for (std::int64_t oy = 0; oy < g.oh; ++oy)
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        const Window wnd = win(g, oy, ox);
        T s = 0;
        for (std::int64_t iy = wnd.y0; iy < wnd.y1; ++iy)
          for (std::int64_t ix = wnd.x0; ix < wnd.x1; ++ix) s += xp[iy * g.w + ix];
        out[(pl * g.oh + oy) * g.ow + ox] = (wnd.y0 >= wnd.y1 || wnd.x0 >= wnd.x1) ? T(0) : s / static_cast<T>(wnd.div);
      }
  }
}

template <class T, class WinFn> void avg_backward(const T* go, const PoolGeom& g, T* dx, WinFn win) {
  for (std::int64_t pl = 0; pl < g.planes; ++pl) {
    T* dp = dx + pl * g.h * g.w;
    for (std::int64_t oy = 0; oy < g.oh; ++oy)
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        const Window wnd = win(g, oy, ox);
        const T share = go[(pl * g.oh + oy) * g.ow + ox] / static_cast<T>(wnd.div);
        for (std::int64_t iy = wnd.y0; iy < wnd.y1; ++iy)
          for (std::int64_t ix = wnd.x0; ix < wnd.x1; ++ix) dp[iy * g.w + ix] += share;
      }
  }
}

// avg_pool2d / adaptive_avg_pool2d: out = the mean of each window      dx = g / window size, spread
// over the window (the two differ only in where the windows are).
template <bool Adaptive>
struct AvgPool : autograd::Function<AvgPool<Adaptive>> {
  static constexpr const char* name = Adaptive ? "AdaptiveAvgPool2DBackward0" : "AvgPool2DBackward0";
  static constexpr bool once_differentiable = true;  // the backward is a kernel, not tensor ops
  Shape in_shape;
  DType dtype = kFloat32;
  PoolGeom g{};

  Tensor forward(autograd::Context&, const Tensor& x4, const PoolGeom& geom) {
    g = geom;
    in_shape = x4.shape();
    dtype = x4.dtype();
    const Tensor x = kindling::detail::contiguous_copy(x4);
    Tensor out = kindling::detail::make_tensor({x.size(0), x.size(1), g.oh, g.ow}, x.dtype(), x.device());
    kindling::detail::dispatch_floating(x.dtype(), name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (Adaptive) avg_forward<T>(x.data_ptr<T>(), g, out.data_ptr<T>(), adaptive_window);
      else avg_forward<T>(x.data_ptr<T>(), g, out.data_ptr<T>(), avg_window);
    });
    return out;
  }

  autograd::Grads backward(autograd::Context&, const autograd::Grads& grads) {
    const Tensor go = kindling::detail::contiguous_copy(grads[0].to(dtype));
    Tensor dx = zeros(in_shape, {.dtype = dtype});
    kindling::detail::dispatch_floating(dtype, name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (Adaptive) avg_backward<T>(go.data_ptr<T>(), g, dx.data_ptr<T>(), adaptive_window);
      else avg_backward<T>(go.data_ptr<T>(), g, dx.data_ptr<T>(), avg_window);
    });
    return {dx};
  }
};

// Unbatched [C, H, W] inputs are run as a batch of one, like PyTorch.
template <class F> Tensor with_batch(const Tensor& x, F f) {
  if (x.dim() == 3) return f(x.unsqueeze(0)).squeeze(0);
  return f(x);
}

}  // namespace

Tensor max_pool2d(const Tensor& input, IntPair kernel_size, IntPair stride, IntPair padding, IntPair dilation,
                  bool ceil_mode) {
  if (detail::computes_in_float32(input))  // the max of bfloat16 values is one of them: exact either way
    return max_pool2d(detail::widened(input), kernel_size, stride, padding, dilation, ceil_mode).to(input.dtype());
  return with_batch(input, [&](const Tensor& x4) {
    const PoolGeom g = make_geom("max_pool2d", x4, kernel_size, stride, padding, dilation, ceil_mode);
    return MaxPool2d::apply(x4, g);
  });
}

Tensor avg_pool2d(const Tensor& input, IntPair kernel_size, IntPair stride, IntPair padding, bool ceil_mode,
                  bool count_include_pad) {
  if (detail::computes_in_float32(input)) {  // a float32 mean, rounded once
    return avg_pool2d(detail::widened(input), kernel_size, stride, padding, ceil_mode, count_include_pad)
        .to(input.dtype());
  }
  return with_batch(input, [&](const Tensor& x4) {
    PoolGeom g = make_geom("avg_pool2d", x4, kernel_size, stride, padding, 1, ceil_mode);
    g.count_include_pad = count_include_pad;
    return AvgPool<false>::apply(x4, g);
  });
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntPair output_size) {
  if (detail::computes_in_float32(input))
    return adaptive_avg_pool2d(detail::widened(input), output_size).to(input.dtype());
  return with_batch(input, [&](const Tensor& x4) {
    if (x4.dim() != 4)
      throw ShapeError("adaptive_avg_pool2d: expected a 3-D or 4-D input but got " + shape_str(x4.shape()));
    detail::check_floating("adaptive_avg_pool2d", "input", x4);
    kindling::detail::check_cpu(x4, "adaptive_avg_pool2d");
    if (output_size.h < 1 || output_size.w < 1)
      throw ValueError("adaptive_avg_pool2d: output_size " + output_size.str(true) + " must be positive");
    if (x4.size(2) < 1 || x4.size(3) < 1)
      throw ShapeError("adaptive_avg_pool2d: input " + shape_str(x4.shape()) + " has an empty spatial dimension");
    const PoolGeom g{x4.size(0) * x4.size(1), x4.size(2), x4.size(3), 0, 0, 1, 1, 0, 0, 1, 1, output_size.h,
                     output_size.w};
    return AvgPool<true>::apply(x4, g);
  });
}

}  // namespace kindling::nn::functional
