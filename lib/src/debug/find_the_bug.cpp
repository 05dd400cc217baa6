// What chapter 7's find-the-bug programs share (kindling/debug/find_the_bug.hpp); the programs
// themselves are the exercises (solutions/ch07/ex2..ex4).
#include "kindling/debug/find_the_bug.hpp"

#include "kindling/autograd/grad_mode.hpp"

namespace kindling::debug::find_the_bug {

MLP::MLP(std::int64_t features, std::int64_t hidden, std::int64_t classes)
    : fc1(features, hidden), fc2(hidden, classes) {
  register_module("fc1", fc1);
  register_module("relu", relu);
  register_module("fc2", fc2);
}

Tensor MLP::forward(const Tensor& x) { return fc2(relu(fc1(x))); }

double accuracy(nn::Module& model, const Tensor& x, const Tensor& y) {
  const bool was_training = model.is_training();
  model.eval();
  NoGradGuard no_grad;
  const double correct = (model(x).argmax(1) == y).sum().item<double>();
  model.train(was_training);
  return y.size(0) == 0 ? 0.0 : correct / static_cast<double>(y.size(0));
}

}  // namespace kindling::debug::find_the_bug
