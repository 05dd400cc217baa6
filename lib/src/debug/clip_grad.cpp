// clip_grad_norm_ and clip_grad_value_, as torch/nn/utils/clip_grad.py computes them: the total
// norm is the norm of the per-parameter norms (for p = inf, the largest of the per-parameter
// maxima), and every gradient is multiplied by the same clamped coefficient.
#include "kindling/debug/clip_grad.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "tensor/dispatch.hpp"

namespace kindling::nn::utils {

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

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  if (std::isnan(norm_type) || norm_type <= 0) {
    throw ValueError("clip_grad_norm_: norm_type must be positive or kInf, got " + std::to_string(norm_type) +
                     ". Hint: 2.0 (the default) is the Euclidean norm, kd::nn::utils::kInf the largest |g|.");
  }
  if (std::isnan(max_norm)) throw ValueError("clip_grad_norm_: max_norm is NaN. Hint: pass a positive number.");
  std::vector<Tensor> grads;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (!parameters[i].defined()) throw ValueError("clip_grad_norm_: parameter " + std::to_string(i) + " is undefined.");
    Tensor g = parameters[i].grad();
    if (!g.defined()) continue;
    if (!g.is_floating_point()) {
      throw DTypeError("clip_grad_norm_: the gradient of parameter " + std::to_string(i) + " has dtype " +
                       dtype_name(g.dtype()) + ". Hint: gradients are floating point; was .grad set by hand?");
    }
    grads.push_back(g);
  }
  if (grads.empty()) return zeros({});  // PyTorch: torch.tensor(0.)
  const DType dtype = grads[0].dtype();

  // [snippet: clip-grad-norm]
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
  // [end]
  std::size_t worst = 0;
  // The norms PyTorch would return are rounded to the gradients' dtype; so is the coefficient.
  const Tensor total_t = full({}, total, {.dtype = dtype});
  total = total_t.item<double>();
  if (error_if_nonfinite && !std::isfinite(total)) {
    for (std::size_t i = 0; i < norms.size(); ++i)
      if (!std::isfinite(norms[i])) { worst = i; break; }
    throw ValueError("clip_grad_norm_: the total norm of order " + std::to_string(norm_type) +
                     " for gradients from `parameters` is non-finite (" + std::to_string(total) +
                     "), so it cannot be clipped; the first non-finite gradient has shape " +
                     shape_str(grads[worst].shape()) + ". Hint: find where the NaN/Inf comes from with "
                     "kd::autograd::DetectAnomalyGuard; to scale by the non-finite norm anyway, pass "
                     "error_if_nonfinite = false.");
  }
  // [snippet: clip-coef]
  // One coefficient for every gradient: the directions stay, the total length shrinks.
  // (In float32 for float32 gradients, as PyTorch computes it.)
  double coef = max_norm / (total + 1e-6);
  if (dtype != kFloat64) coef = static_cast<float>(max_norm / (float(total) + 1e-6f));
  // torch.clamp(coef, max=1) keeps a NaN
  if (!std::isnan(coef)) coef = std::min(coef, 1.0);
  autograd::NoGradGuard no_grad;
  for (Tensor& g : grads) g.mul_(coef);
  return total_t;
  // [end]
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  if (std::isnan(clip_value)) throw ValueError("clip_grad_value_: clip_value is NaN. Hint: pass a positive number.");
  autograd::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (!parameters[i].defined()) throw ValueError("clip_grad_value_: parameter " + std::to_string(i) + " is undefined.");
    Tensor g = parameters[i].grad();
    if (g.defined()) g.clamp_(-clip_value, clip_value);
  }
}

}  // namespace kindling::nn::utils
