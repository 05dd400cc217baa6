#pragma once
// Internal: what the pooling layers share -- the window geometry of a pool over each [H, W] plane
// of x [N, C, H, W], PyTorch's output-size rule, the argument checks, and the unbatched case.
// max_pool2d is in pooling.cpp, avg_pool2d and adaptive_avg_pool2d in avg_pooling.cpp.
#include <cstdint>
#include <string>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/ops.hpp"
#include "nn/checks.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional::pooling {

struct PoolGeom {
  std::int64_t planes, h, w;  // planes = N·C
  std::int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  std::int64_t oh, ow;
  bool ceil_mode = false, count_include_pad = true;
};

// PyTorch's pooling_output_shape: floor (or ceil) of the window count, and with ceil_mode the last
// window must still start inside the input or its left padding.
inline std::int64_t pool_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t d, bool ceil) {
  const std::int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
  std::int64_t out = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

inline PoolGeom make_geom(const char* op, const Tensor& x, IntPair k, IntPair s, IntPair p, IntPair d, bool ceil) {
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

// Unbatched [C, H, W] inputs are run as a batch of one, like PyTorch.
template <class F> Tensor with_batch(const Tensor& x, F f) {
  if (x.dim() == 3) return f(x.unsqueeze(0)).squeeze(0);
  return f(x);
}

}  // namespace kindling::nn::functional::pooling
