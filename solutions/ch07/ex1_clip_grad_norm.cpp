// ch07.ex1 — the norm and the scaling behind clip_grad_norm_: the norm of the per-gradient norms, then
// one clamped coefficient for every gradient.
//
// nn::utils::clip_grad_norm_ (lib/src/debug/clip_grad.cpp) checks its arguments, collects the gradients
// and calls this piece; chapter 7's programs call clip_grad_norm_ (and the doctor tells you to). Declared in
// lib/src/debug/pieces.hpp.
#include <algorithm>
#include <cmath>
#include <string>

#include "debug/pieces.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "tensor/dispatch.hpp"

namespace kindling::nn::utils::detail {
// BEGIN SOLUTION ex1: one norm per gradient
namespace {

// The norm_type-norm of one gradient, accumulated in double (PyTorch accumulates float32 norms in
// float32 with a pairwise sum; double is at least as accurate, within the parity tolerance).
double grad_norm(const Tensor& grad, double p) {
  Tensor c = grad.contiguous();
  if (c.dtype() != kFloat32 && c.dtype() != kFloat64) c = c.to(kFloat32);
  return kindling::detail::dispatch_floating(c.dtype(), "clip_grad_norm_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = c.data_ptr<T>();
    const std::int64_t n = c.numel();
    double acc = 0;
    if (std::isinf(p)) {
      for (std::int64_t i = 0; i < n; ++i) {
        const double a = std::abs(static_cast<double>(x[i]));
        if (std::isnan(a)) return a;  // max() propagates NaN, as torch.max does
        acc = std::max(acc, a);
      }
      return acc;
    }
    if (p == 2.0) {
      for (std::int64_t i = 0; i < n; ++i) acc += static_cast<double>(x[i]) * static_cast<double>(x[i]);
      return std::sqrt(acc);
    }
    if (p == 1.0) {
      for (std::int64_t i = 0; i < n; ++i) acc += std::abs(static_cast<double>(x[i]));
      return acc;
    }
    for (std::int64_t i = 0; i < n; ++i) acc += std::pow(std::abs(static_cast<double>(x[i])), p);
    return std::pow(acc, 1.0 / p);
  });
}

}  // namespace
// STUB
// END SOLUTION

Tensor clip_total_norm_(const std::vector<Tensor>& grads, double max_norm, double norm_type,
                        bool error_if_nonfinite) {
  // BEGIN SOLUTION ex1: the total norm, the error, the coefficient
  const DType dtype = grads[0].dtype();
  // The norm of the per-parameter norms.
  const double p = norm_type;
  std::vector<double> norms;
  for (const Tensor& g : grads) norms.push_back(grad_norm(g, p));
  double total = 0;
  if (std::isinf(p)) {
    for (double v : norms) total = std::isnan(v) ? v : std::max(total, v);
  } else {
    for (double v : norms) total += std::pow(v, p);
    total = std::pow(total, 1.0 / p);
  }
  // The norm PyTorch returns is rounded to the gradients' dtype; so is the coefficient.
  const Tensor total_t = full({}, total, {.dtype = dtype});
  total = total_t.item<double>();
  if (error_if_nonfinite && !std::isfinite(total)) {
    std::size_t worst = 0;
    for (std::size_t i = 0; i < norms.size(); ++i)
      if (!std::isfinite(norms[i])) { worst = i; break; }
    throw ValueError("clip_grad_norm_: the total norm of order " + std::to_string(norm_type) +
                     " for gradients from `parameters` is non-finite (" + std::to_string(total) +
                     "), so it cannot be clipped; the first non-finite gradient has shape " +
                     shape_str(grads[worst].shape()) + ". Hint: find where the NaN/Inf comes from with "
                     "kd::autograd::DetectAnomalyGuard; to scale by the non-finite norm anyway, pass "
                     "error_if_nonfinite = false.");
  }
  // One coefficient for every gradient: the directions stay, the total length shrinks.
  // (In float32 for float32 gradients, as PyTorch computes it.)
  double coef = max_norm / (total + 1e-6);
  if (dtype != kFloat64) coef = static_cast<float>(max_norm / (float(total) + 1e-6f));
  // torch.clamp(coef, max=1) keeps a NaN
  if (!std::isnan(coef)) coef = std::min(coef, 1.0);
  autograd::NoGradGuard no_grad;
  for (const Tensor& g : grads) {
    Tensor t = g;
    t.mul_(coef);
  }
  return total_t;
  // END SOLUTION
}

}  // namespace kindling::nn::utils::detail
