// A "library call" submission: matmul's gradients asked of autograd (a.mm(b) differentiated inside
// backward), which reaches this very piece again.
#include "autograd/pieces.hpp"
#include "kindling/autograd/engine.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {
std::vector<Tensor> mm_grads(const Tensor& a, const Tensor& b, const Tensor& g) {
  const Tensor x = a.detach().requires_grad_(true), y = b.detach().requires_grad_(true);
  EnableGradGuard enable;
  return grad({x.mm(y)}, {x, y}, {g});
}
}  // namespace

Tensor mm_grad_a(const Tensor& g, const Tensor& b, bool) {
  return mm_grads(zeros({g.size(0), b.size(0)}, {.dtype = g.dtype()}), b, g)[0];
}
Tensor mm_grad_b(const Tensor& g, const Tensor& a, bool) {
  return mm_grads(a, zeros({a.size(1), g.size(1)}, {.dtype = g.dtype()}), g)[1];
}
Grads Bmm::backward(Context& ctx, const Grads& grad) {
  const Tensor x = ctx.saved(0).detach().requires_grad_(true), y = ctx.saved(1).detach().requires_grad_(true);
  EnableGradGuard enable;
  const auto r = autograd::grad({bmm(x, y)}, {x, y}, {grad[0]});
  return {r[0], r[1]};
}
}  // namespace kindling::autograd
