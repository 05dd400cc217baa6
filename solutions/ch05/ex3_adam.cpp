// ex3 — Adam.
#include "ch05/training_exercises.hpp"

#include <cmath>

namespace kindling::exercises::ch05 {

void adam_step(const Tensor& param, AdamState& s, double lr, double beta1, double beta2, double eps) {
  // BEGIN SOLUTION ex3: update m and v, bias-correct with 1 - beta^t, then p -= lr m̂ / (sqrt(v̂) + eps)
  const Tensor g = param.grad();
  if (!g.defined()) return;
  NoGradGuard no_grad;
  if (!s.m.defined()) {
    s.m = zeros_like(param);
    s.v = zeros_like(param);
  }
  ++s.step;
  s.m.mul_(beta1).add_(g * (1 - beta1));
  s.v.mul_(beta2).add_(g * g * (1 - beta2));
  const double bias1 = 1 - std::pow(beta1, static_cast<double>(s.step));
  const double bias2 = 1 - std::pow(beta2, static_cast<double>(s.step));
  // PyTorch's order: denom = sqrt(v) / sqrt(bias2) + eps; p -= (lr / bias1) * m / denom.
  const Tensor denom = s.v.sqrt() / std::sqrt(bias2) + eps;
  Tensor p = param;
  p.sub_(s.m / denom * (lr / bias1));
  // END SOLUTION
}

}  // namespace kindling::exercises::ch05
