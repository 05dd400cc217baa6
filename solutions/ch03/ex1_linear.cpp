// ex1 — a Linear layer from autograd ops: register the parameters, draw them like PyTorch, and write
// forward with differentiable tensor ops so that backward comes for free.
#include "ch03/module_exercises.hpp"

#include <cmath>

namespace kindling::exercises::ch03 {

Linear::Linear(std::int64_t in_features_, std::int64_t out_features_, bool with_bias)
    : in_features(in_features_), out_features(out_features_) {
  // BEGIN SOLUTION ex1: register "weight" [out, in] (and "bias" [out]), then reset_parameters()
  // register_parameter marks the tensor requires_grad and returns the same handle, so the member and
  // the registry point at one tensor: what an optimizer updates is what forward uses.
  weight = register_parameter("weight", empty({out_features, in_features}));
  if (with_bias) bias = register_parameter("bias", empty({out_features}));
  reset_parameters();
  // END SOLUTION
}

void Linear::reset_parameters() {
  // BEGIN SOLUTION ex1: weight ~ kaiming_uniform_(a = sqrt(5)); bias ~ U(-1/sqrt(in), 1/sqrt(in))
  // kaiming_uniform_ with a = √5: gain = √(2 / (1 + 5)) = √(1/3), bound = gain·√(3 / fan_in) = 1/√fan_in.
  nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
    nn::init::uniform_(bias, -bound, bound);
  }
  // END SOLUTION
}

Tensor Linear::forward(const Tensor& x) {
  // BEGIN SOLUTION ex1: x.matmul(weight.t()) + bias
  // x: [*, in] · Wᵀ: [in, out] → [*, out]; the bias [out] broadcasts over the leading dimensions.
  Tensor y = x.matmul(weight.t());
  return bias.defined() ? y + bias : y;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch03
