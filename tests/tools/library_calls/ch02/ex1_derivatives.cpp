// A "library call" submission (see tests/tools/library_calls/ch01/ex1_strides.cpp): each derivative
// asked of autograd itself, by differentiating the op again inside backward -- which runs the engine
// from inside a backward formula (refused), and would reach this very backward anyway.
#include "autograd/pieces.hpp"
#include "kindling/autograd/engine.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {
Grads by_autograd(const Grads& inputs, const Tensor& g, Tensor (*op)(const Grads&)) {
  Grads leaves;
  for (const Tensor& t : inputs) leaves.push_back(t.detach().requires_grad_(true));
  EnableGradGuard enable;
  const std::vector<Tensor> r = grad({op(leaves)}, std::vector<Tensor>(leaves.begin(), leaves.end()), {g});
  return Grads(r.begin(), r.end());
}
}  // namespace

Grads Mul::backward(Context& ctx, const Grads& grad) {
  return by_autograd({ctx.saved(0), ctx.saved(1)}, grad[0], [](const Grads& v) { return v[0] * v[1]; });
}
Grads Div::backward(Context& ctx, const Grads& grad) {
  return by_autograd({ctx.saved(0), ctx.saved(1)}, grad[0], [](const Grads& v) { return v[0] / v[1]; });
}
Grads Exp::backward(Context& ctx, const Grads& grad) {
  return by_autograd({ctx.saved(0).log()}, grad[0], [](const Grads& v) { return v[0].exp(); });
}
Grads Tanh::backward(Context& ctx, const Grads& grad) {
  return by_autograd({ctx.saved(0)}, grad[0], [](const Grads& v) { return v[0].tanh(); });
}
}  // namespace kindling::autograd
