// functional::avg_pool2d / adaptive_avg_pool2d with their backward nodes: the mean of each window,
// and a gradient spread evenly over it. (The two differ only in where the windows are; max_pool2d,
// which keeps where each maximum was, is in pooling.cpp.)
#include <algorithm>
#include <cstdint>

#include "kindling/autograd/function.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/pool_geom.hpp"
#include "tensor/dispatch.hpp"

namespace kindling::nn::functional {

namespace {
using pooling::PoolGeom;
using pooling::make_geom;
using pooling::with_batch;

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

  autograd::Grads backward(autograd::Context&, const autograd::Grads& grads);
};

// Average pooling's backward as an op of its own, for create_graph: it is linear in the gradient,
// so its derivative is its adjoint -- the pooling forward again (AvgPool2DBackwardBackward0).
template <bool Adaptive>
struct AvgPoolGrad : autograd::Function<AvgPoolGrad<Adaptive>> {
  static constexpr const char* name = Adaptive ? "AdaptiveAvgPool2DBackwardBackward0" : "AvgPool2DBackwardBackward0";
  Shape in_shape;
  DType dtype = kFloat32;
  PoolGeom g{};
  Tensor forward(autograd::Context&, const Tensor& grad, const Shape& in_shape_, DType dtype_, const PoolGeom& geom) {
    in_shape = in_shape_;
    dtype = dtype_;
    g = geom;
    const Tensor go = kindling::detail::contiguous_copy(grad.to(dtype));
    Tensor dx = zeros(in_shape, {.dtype = dtype});
    kindling::detail::dispatch_floating(dtype, name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (Adaptive) avg_backward<T>(go.data_ptr<T>(), g, dx.data_ptr<T>(), adaptive_window);
      else avg_backward<T>(go.data_ptr<T>(), g, dx.data_ptr<T>(), avg_window);
    });
    return dx;
  }
  autograd::Grads backward(autograd::Context&, const autograd::Grads& grads) {
    return {AvgPool<Adaptive>::apply(grads[0].reshape(in_shape), g)};
  }
};

template <bool Adaptive>
autograd::Grads AvgPool<Adaptive>::backward(autograd::Context&, const autograd::Grads& grads) {
  return {AvgPoolGrad<Adaptive>::apply(grads[0], in_shape, dtype, g)};
}

}  // namespace

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
