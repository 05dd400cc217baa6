// ex1 — backward formulas of four elementwise ops: the chain rule, one op at a time.
#include "ch02/autograd_exercises.hpp"

namespace kindling::exercises::ch02 {

std::pair<Tensor, Tensor> mul_backward(const Tensor& grad, const Tensor& a, const Tensor& b) {
  // BEGIN SOLUTION ex1: d(a*b)/da = b, d(a*b)/db = a
  // out = a * b: each output element depends on one a and one b element.
  return {grad * b, grad * a};
  // END SOLUTION
}

std::pair<Tensor, Tensor> div_backward(const Tensor& grad, const Tensor& a, const Tensor& b) {
  // BEGIN SOLUTION ex1: d(a/b)/da = 1/b, d(a/b)/db = -a/b^2
  return {grad / b, -grad * a / (b * b)};
  // END SOLUTION
}

Tensor exp_backward(const Tensor& grad, const Tensor& result) {
  // BEGIN SOLUTION ex1: d exp(x)/dx = exp(x), which is the saved result
  return grad * result;
  // END SOLUTION
}

Tensor tanh_backward(const Tensor& grad, const Tensor& result) {
  // BEGIN SOLUTION ex1: d tanh(x)/dx = 1 - tanh(x)^2
  return grad * (1 - result * result);
  // END SOLUTION
}

}  // namespace kindling::exercises::ch02
