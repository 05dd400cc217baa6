// clip_grad_norm_ and clip_grad_value_, as torch/nn/utils/clip_grad.py computes them: the total
// norm is the norm of the per-parameter norms (for p = inf, the largest of the per-parameter
// maxima), and every gradient is multiplied by the same clamped coefficient.
#include "kindling/debug/clip_grad.hpp"

#include "debug/pieces.hpp"

#include <cmath>
#include <string>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::nn::utils {

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
  // The norm and the scaling: chapter 7's ex1 (lib/src/debug/pieces.hpp).
  return detail::clip_total_norm_(grads, max_norm, norm_type, error_if_nonfinite);
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
