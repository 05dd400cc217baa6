// ex2 — SGD with momentum.
#include "ch05/training_exercises.hpp"

namespace kindling::exercises::ch05 {

void sgd_momentum_step(const std::vector<Tensor>& params, std::vector<Tensor>& buffers, double lr, double momentum,
                       double weight_decay) {
  // BEGIN SOLUTION ex2: d = g + wd p; buf = d (first step) or momentum buf + d; p -= lr buf — in place
  if (buffers.size() != params.size()) {
    throw ValueError("sgd_momentum_step: " + std::to_string(params.size()) + " parameters but " +
                     std::to_string(buffers.size()) + " momentum buffers");
  }
  NoGradGuard no_grad;  // the update itself must not be recorded
  for (std::size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i];
    const Tensor g = p.grad();
    if (!g.defined()) continue;
    Tensor d = weight_decay != 0 ? g + p * weight_decay : g;
    if (!buffers[i].defined()) {
      buffers[i] = d.clone();  // the first step copies d
    } else {
      buffers[i].mul_(momentum).add_(d);
    }
    p.sub_(buffers[i] * lr);
  }
  // END SOLUTION
}

}  // namespace kindling::exercises::ch05
