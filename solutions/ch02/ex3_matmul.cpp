// ex3 — backward of (batched) matmul: two more matmuls with a transposed operand.
#include "ch02/autograd_exercises.hpp"

namespace kindling::exercises::ch02 {

std::pair<Tensor, Tensor> matmul_backward(const Tensor& grad, const Tensor& a, const Tensor& b) {
  // BEGIN SOLUTION ex3: grad_a = grad @ b^T, grad_b = a^T @ grad, then sum the broadcast batch dims away
  // a: [..., n, k], b: [..., k, m], grad: [..., n, m]
  const Tensor grad_a = grad.matmul(b.transpose(-2, -1));  // [..., n, k] (batch dims of the output)
  const Tensor grad_b = a.transpose(-2, -1).matmul(grad);  // [..., k, m]
  return {unbroadcast(grad_a, a.shape()), unbroadcast(grad_b, b.shape())};
  // END SOLUTION
}

}  // namespace kindling::exercises::ch02
