// ex5 — a module with two paths fused again: a custom forward, with every layer registered.
#include "ch03/module_exercises.hpp"

namespace kindling::exercises::ch03 {

TwoBranchNet::TwoBranchNet(std::int64_t in_features, std::int64_t hidden, std::int64_t out_features) {
  // BEGIN SOLUTION ex5: make_shared three nn::Linear and register them as "branch_a", "branch_b", "head"
  // register_module(name, shared_ptr) returns the pointer, so creating and registering is one line.
  branch_a = register_module("branch_a", std::make_shared<nn::Linear>(in_features, hidden));
  branch_b = register_module("branch_b", std::make_shared<nn::Linear>(in_features, hidden));
  head = register_module("head", std::make_shared<nn::Linear>(2 * hidden, out_features));
  // END SOLUTION
}

Tensor TwoBranchNet::forward(const Tensor& x) {
  // BEGIN SOLUTION ex5: head(cat({relu(branch_a(x)), tanh(branch_b(x))}, 1))
  Tensor a = (*branch_a)(x).relu();  // [N, hidden]
  Tensor b = (*branch_b)(x).tanh();  // [N, hidden]
  return (*head)(cat({a, b}, 1));    // [N, 2·hidden] → [N, out]
  // END SOLUTION
}

}  // namespace kindling::exercises::ch03
