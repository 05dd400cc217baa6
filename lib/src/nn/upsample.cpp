// functional::interpolate and nn::Upsample: resizing [N, C, H, W] images, "nearest" and "bilinear",
// forward and backward side by side. The index arithmetic is PyTorch 1.13's CPU kernels', in the
// tensor's own precision (float for float32), so the pixels picked and the weights agree exactly.
//
//   nearest:  out[y, x] = in[src(y), src(x)],  src(d) = min(floor(d · scale), in - 1)
//   bilinear: out[y, x] = Σ over the 2x2 pixels around (src(y), src(x)) of in · (1 - |distance|)
//   backward: each output gradient is added back to the pixels it read, with the same weights.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "kindling/autograd/function.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/upsample.hpp"
#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/repr.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional {

namespace {

// One output dim's source pixels: out index d reads i0[d] with weight l0[d] and i1[d] with l1[d]
// (nearest: i1 = i0, l1 = 0, and resample reads i0 alone).
template <class T> struct Taps {
  std::vector<std::int64_t> i0, i1;
  std::vector<T> l0, l1;
};

// PyTorch's compute_scales_value: 1/scale_factor when one was given, else in/out.
template <class T> T source_scale(std::int64_t in, std::int64_t out, double scale_factor) {
  return scale_factor > 0 ? static_cast<T>(1.0 / scale_factor) : static_cast<T>(in) / static_cast<T>(out);
}

template <class T> Taps<T> nearest_taps(std::int64_t in, std::int64_t out, double scale_factor) {
  Taps<T> t;
  const T scale = source_scale<T>(in, out, scale_factor);
  for (std::int64_t d = 0; d < out; ++d) {
    std::int64_t s;
    if (out == in) s = d;  // PyTorch's exact shortcuts for 1x and 2x
    else if (out == 2 * in) s = d >> 1;
    else s = std::min(static_cast<std::int64_t>(std::floor(static_cast<T>(d) * scale)), in - 1);
    t.i0.push_back(s);
    t.i1.push_back(s);
    t.l0.push_back(T(1));
    t.l1.push_back(T(0));
  }
  return t;
}

template <class T> Taps<T> linear_taps(std::int64_t in, std::int64_t out, double scale_factor, bool align_corners) {
  Taps<T> t;
  if (out == in) {
    // PyTorch's compute_source_index_and_lambda: a dimension that keeps its size reads its own pixel
    // twice, with weights 1 and 0, whatever the scale (so an infinite pixel becomes NaN, and only it).
    for (std::int64_t d = 0; d < out; ++d) {
      t.i0.push_back(d);
      t.i1.push_back(d);
      t.l0.push_back(T(1));
      t.l1.push_back(T(0));
    }
    return t;
  }
  // area_pixel_compute_scale: with align_corners the corner pixels' centres map onto each other.
  const T scale = align_corners ? (out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0))
                                : source_scale<T>(in, out, scale_factor);
  for (std::int64_t d = 0; d < out; ++d) {
    T src = align_corners ? scale * static_cast<T>(d) : scale * (static_cast<T>(d) + T(0.5)) - T(0.5);
    if (src < 0) src = 0;  // the half-pixel form reads before pixel 0 near the edge: clamp
    const auto i0 = static_cast<std::int64_t>(src);
    const std::int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    const T l1 = std::min(std::max(src - static_cast<T>(i0), T(0)), T(1));
    t.i0.push_back(i0);
    t.i1.push_back(i1);
    t.l0.push_back(T(1) - l1);
    t.l1.push_back(l1);
  }
  return t;
}

struct Geometry {
  std::int64_t n, c, h, w, oh, ow;
  double scale_h, scale_w;  // the scale_factor given, or 0 for "from the sizes"
  bool bilinear, align_corners;
};

template <class T> void taps_for(const Geometry& g, Taps<T>& th, Taps<T>& tw) {
  th = g.bilinear ? linear_taps<T>(g.h, g.oh, g.scale_h, g.align_corners) : nearest_taps<T>(g.h, g.oh, g.scale_h);
  tw = g.bilinear ? linear_taps<T>(g.w, g.ow, g.scale_w, g.align_corners) : nearest_taps<T>(g.w, g.ow, g.scale_w);
}

// x [N·C, H, W] contiguous → out [N·C, oh, ow].
template <class T> void resample(const T* x, const Geometry& g, T* out) {
  Taps<T> th, tw;
  taps_for(g, th, tw);
  for (std::int64_t p = 0; p < g.n * g.c; ++p) {
    const T* img = x + p * g.h * g.w;
    T* o = out + p * g.oh * g.ow;
    for (std::int64_t y = 0; y < g.oh; ++y) {
      const T* r0 = img + th.i0[y] * g.w;
      const T* r1 = img + th.i1[y] * g.w;
      if (!g.bilinear) {
        // Nearest copies its one tap: weighting it would add 0 * x, and 0 * inf is NaN.
        for (std::int64_t xo = 0; xo < g.ow; ++xo) o[y * g.ow + xo] = r0[tw.i0[xo]];
        continue;
      }
      for (std::int64_t xo = 0; xo < g.ow; ++xo) {
        const std::int64_t a = tw.i0[xo], b = tw.i1[xo];
        o[y * g.ow + xo] = th.l0[y] * (tw.l0[xo] * r0[a] + tw.l1[xo] * r0[b]) +
                           th.l1[y] * (tw.l0[xo] * r1[a] + tw.l1[xo] * r1[b]);
      }
    }
  }
}

// The adjoint: gout [N·C, oh, ow] → dx [N·C, H, W] (zero-filled), each output's gradient spread with
// the forward's weights.
template <class T> void resample_backward(const T* gout, const Geometry& g, T* dx) {
  Taps<T> th, tw;
  taps_for(g, th, tw);
  for (std::int64_t p = 0; p < g.n * g.c; ++p) {
    T* img = dx + p * g.h * g.w;
    const T* go = gout + p * g.oh * g.ow;
    for (std::int64_t y = 0; y < g.oh; ++y) {
      T* r0 = img + th.i0[y] * g.w;
      T* r1 = img + th.i1[y] * g.w;
      if (!g.bilinear) {  // nearest: each output's gradient goes whole to its one tap
        for (std::int64_t xo = 0; xo < g.ow; ++xo) r0[tw.i0[xo]] += go[y * g.ow + xo];
        continue;
      }
      for (std::int64_t xo = 0; xo < g.ow; ++xo) {
        const T v = go[y * g.ow + xo];
        const std::int64_t a = tw.i0[xo], b = tw.i1[xo];
        r0[a] += th.l0[y] * tw.l0[xo] * v;
        r0[b] += th.l0[y] * tw.l1[xo] * v;
        r1[a] += th.l1[y] * tw.l0[xo] * v;
        r1[b] += th.l1[y] * tw.l1[xo] * v;
      }
    }
  }
}

template <const char* Name, const char* GradName> struct Upsample2dGrad;

template <const char* Name, const char* GradName> struct Upsample2d : autograd::Function<Upsample2d<Name, GradName>> {
  static constexpr const char* name = Name;
  Geometry g{};
  DType dtype = kFloat32;  // the input's
  Tensor forward(autograd::Context&, const Tensor& input, const Geometry& geom) {
    g = geom;
    // float16/bfloat16: computed in float32 (the input widened exactly), rounded once.
    dtype = input.dtype();
    const Tensor x = kindling::detail::contiguous_copy(
        kindling::detail::cast(input, kindling::detail::compute_dtype_of(input.dtype())));
    Tensor out = kindling::detail::make_tensor({g.n, g.c, g.oh, g.ow}, x.dtype(), x.device());
    kindling::detail::dispatch_floating(x.dtype(), "interpolate", [&](auto tag) {
      using T = typename decltype(tag)::type;
      resample<T>(x.data_ptr<T>(), g, out.data_ptr<T>());
    });
    return kindling::detail::cast(out, dtype);
  }
  autograd::Grads backward(autograd::Context&, const autograd::Grads& grads) {
    return {Upsample2dGrad<Name, GradName>::apply(grads[0], g, dtype)};
  }
};

// The backward as an op of its own, so that create_graph can record it: it is linear in the
// gradient, so its own derivative is its adjoint -- the resampling forward again (PyTorch's
// UpsampleBilinear2DBackwardBackward0).
template <const char* Name, const char* GradName>
struct Upsample2dGrad : autograd::Function<Upsample2dGrad<Name, GradName>> {
  static constexpr const char* name = GradName;
  Geometry g{};
  Tensor forward(autograd::Context&, const Tensor& grad, const Geometry& geom, DType input_dtype) {
    g = geom;
    // The sums of a 16-bit gradient accumulate in float32 and are rounded once.
    const Tensor gout = kindling::detail::contiguous_copy(
        kindling::detail::cast(grad, kindling::detail::compute_dtype_of(grad.dtype())));
    Tensor dx = zeros({g.n, g.c, g.h, g.w}, {.dtype = gout.dtype()});
    kindling::detail::dispatch_floating(gout.dtype(), "interpolate backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      resample_backward<T>(gout.data_ptr<T>(), g, dx.data_ptr<T>());
    });
    return kindling::detail::cast(dx, input_dtype);
  }
  autograd::Grads backward(autograd::Context&, const autograd::Grads& grads) {
    return {Upsample2d<Name, GradName>::apply(grads[0], g)};
  }
};
constexpr char kNearestName[] = "UpsampleNearest2DBackward0";
constexpr char kBilinearName[] = "UpsampleBilinear2DBackward0";
constexpr char kNearestGradName[] = "UpsampleNearest2DBackwardBackward0";
constexpr char kBilinearGradName[] = "UpsampleBilinear2DBackwardBackward0";

// One or two numbers for (H, W), as PyTorch accepts an int or a tuple of the spatial rank.
template <class V> std::pair<V, V> two(const std::vector<V>& v, const char* what, const Tensor& x) {
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1]};
  throw ShapeError(std::string("interpolate: Input and output must have the same number of spatial dimensions, but "
                               "got input with spatial dimensions of [") + std::to_string(x.size(2)) + ", " +
                   std::to_string(x.size(3)) + "] and " + what + " of " + std::to_string(v.size()) +
                   " values. Hint: give one number for both or (H, W).");
}

}  // namespace

Tensor interpolate(const Tensor& x, const InterpolateOptions& o) {
  kindling::detail::check_cpu(x, "interpolate");
  const bool bilinear = o.mode == "bilinear";
  if (o.mode != "nearest" && !bilinear) {
    throw ValueError("interpolate: mode '" + o.mode + "' is not supported (Kindling has 'nearest' and 'bilinear').");
  }
  if (o.align_corners.has_value() && !bilinear) {
    throw ValueError("interpolate: align_corners option can only be set with the interpolating modes: linear | "
                     "bilinear | bicubic | trilinear");
  }
  if (x.dim() != 4) {
    throw ShapeError("interpolate: expected a 4-D input [N, C, H, W] but got shape " + shape_str(x.shape()) +
                     (bilinear ? ". Got " + std::to_string(x.dim()) + "D input, but bilinear mode needs 4D input."
                               : ". Hint: Kindling resizes images; add the batch dimension with x.unsqueeze(0)."));
  }
  if (!o.size.empty() && !o.scale_factor.empty()) {
    throw ValueError("interpolate: only one of size or scale_factor should be defined");
  }
  if (o.size.empty() && o.scale_factor.empty()) {
    throw ValueError("interpolate: either size or scale_factor should be defined");
  }
  Geometry g{x.size(0), x.size(1), x.size(2), x.size(3), 0, 0, 0, 0, bilinear, o.align_corners.value_or(false)};
  if (!o.size.empty()) {
    std::tie(g.oh, g.ow) = two(o.size, "output size", x);
  } else {
    std::tie(g.scale_h, g.scale_w) = two(o.scale_factor, "scale_factor", x);
    if (!(g.scale_h > 0 && g.scale_w > 0) || !std::isfinite(g.scale_h) || !std::isfinite(g.scale_w)) {
      throw ValueError("interpolate: scale_factor must be positive and finite, got (" + detail::py_float(g.scale_h) +
                       ", " + detail::py_float(g.scale_w) + ")");
    }
    // out = floor(in · scale), in double as PyTorch's Python side computes it; checked before any cast.
    g.oh = checked::to_int64(std::floor(static_cast<double>(g.h) * g.scale_h), "interpolate: the output height");
    g.ow = checked::to_int64(std::floor(static_cast<double>(g.w) * g.scale_w), "interpolate: the output width");
  }
  if (g.oh <= 0 || g.ow <= 0 || g.h <= 0 || g.w <= 0) {
    throw ValueError("interpolate: input " + shape_str(x.shape()) + " and output (" + std::to_string(g.oh) + ", " +
                     std::to_string(g.ow) + ") sizes should be greater than 0");
  }
  checked::numel({g.n, g.c, g.oh, g.ow}, "interpolate");  // refuses an output too large to count
  return bilinear ? Upsample2d<kBilinearName, kBilinearGradName>::apply(x, g)
                  : Upsample2d<kNearestName, kNearestGradName>::apply(x, g);
}

}  // namespace kindling::nn::functional

namespace kindling::nn {

Upsample::Upsample(UpsampleOptions options_) : options(std::move(options_)) {
  // Checked once here rather than at the first forward.
  if (options.size.empty() == options.scale_factor.empty()) {
    throw ValueError(std::string("Upsample: ") + (options.size.empty() ? "either size or scale_factor should be defined"
                                                                          : "only one of size or scale_factor should be defined"));
  }
}

Tensor Upsample::forward(const Tensor& x) {
  return functional::interpolate(x, {.size = options.size, .scale_factor = options.scale_factor, .mode = options.mode,
                                     .align_corners = options.align_corners});
}

// PyTorch's Upsample.extra_repr: "scale_factor=2.0, mode=nearest" or "size=(4, 5), mode=bilinear".
std::string Upsample::extra_repr() const {
  std::string s;
  if (!options.scale_factor.empty()) {
    s = "scale_factor=";
    if (options.scale_factor.size() == 1) {
      s += detail::py_float(options.scale_factor[0]);
    } else {
      s += "(" + detail::py_float(options.scale_factor[0]) + ", " + detail::py_float(options.scale_factor[1]) + ")";
    }
  } else {
    s = "size=" + (options.size.size() == 1 ? std::to_string(options.size[0]) : detail::py_tuple(options.size));
  }
  return s + ", mode=" + options.mode;
}

}  // namespace kindling::nn
