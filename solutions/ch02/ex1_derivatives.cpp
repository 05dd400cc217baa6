// ch02.ex1 — rows of the derivative table: the backward of mul, div, exp and tanh.
//
// Each is the `backward` of one autograd::Function (declared in lib/src/autograd/pieces.hpp; its
// setup_context, in binary_ops_backward.cpp / unary_ops_backward.cpp, saved what is listed there).
// Every a * b, a / b, x.exp() and x.tanh() that records a graph runs these when backward reaches it:
// a softmax, a loss, the tanh layers of a network all go through them.
//
// grad[0] is d loss / d out. Return one gradient per tensor input, in order; an input that needs no
// gradient (!ctx.needs_input_grad(i)) gets Tensor(). Write the formula for out's shape: the engine
// sums a gradient back to its input's shape when the input was broadcast (your ex2).
#include "autograd/pieces.hpp"
#include "kindling/tensor/ops.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/internal.hpp"
#include "tensor/loops.hpp"

namespace kindling::autograd {

// out = a * b: d out / d a = b, d out / d b = a.
Grads Mul::backward(Context& ctx, const Grads& grad) {
  // BEGIN SOLUTION ex1: multiply grad by the other factor
  const Tensor& g = grad[0];
  return {ctx.needs_input_grad(0) ? g * ctx.saved(1) : Tensor(),
          ctx.needs_input_grad(1) ? g * ctx.saved(0) : Tensor()};
  // END SOLUTION
}

// out = a / b: d out / d a = 1 / b, d out / d b = -a / b².
Grads Div::backward(Context& ctx, const Grads& grad) {
  // BEGIN SOLUTION ex1: the quotient rule, one input at a time
  const Tensor& g = grad[0];
  const Tensor b = ctx.saved(1);
  return {ctx.needs_input_grad(0) ? g / b : Tensor(),
          ctx.needs_input_grad(1) ? -g * ctx.saved(0) / (b * b) : Tensor()};
  // END SOLUTION
}

// out = e^x: d out / d x = e^x = out (saved: the output, so backward needs no new exp).
Grads Exp::backward(Context& ctx, const Grads& grad) {
  // BEGIN SOLUTION ex1: the derivative of exp is exp itself: the saved output
  return {grad[0] * ctx.saved(0)};
  // END SOLUTION
}

// out = tanh x: d out / d x = 1 - tanh² x = 1 - out².
Grads Tanh::backward(Context& ctx, const Grads& grad) {
  // BEGIN SOLUTION ex1: 1 - out², from the saved output
  const Tensor y = ctx.saved(0);
  const Tensor& g = grad[0];
  // A plain backward (grad mode off) computes g * (1 - y²) in one loop into one new tensor, like
  // PyTorch's tanh_backward kernel: a chain of tanh layers then makes one tensor per step, not four.
  // With create_graph (grad mode on) the formula below is recorded, so it can be differentiated;
  // float16/bfloat16 also take it (its ops compute in float32 and round once).
  const bool plain = !kindling::detail::grad_mode_enabled() && g.shape() == y.shape() &&
                     g.dtype() == y.dtype() && !is_reduced_floating_point(y.dtype());
  if (plain) {
    Tensor out = kindling::detail::make_tensor(y.shape(), y.dtype());
    kindling::detail::dispatch_floating(y.dtype(), "tanh_backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      kindling::detail::binary_loop<T, T, T>(out, g, y, [](T gv, T yv) { return gv * (1 - yv * yv); });
    });
    return {out};
  }
  return {g * (1.0 - y * y)};
  // END SOLUTION
}

}  // namespace kindling::autograd
