// ch02.ex2 — unbroadcast: the gradient of an input that was broadcast in the forward pass.
//
// A bias [10] added to logits [32, 10] fed 32 output elements with each of its values, so its
// gradient is the sum of theirs: grad [32, 10] summed over dim 0 -> [10]. The engine does this for
// every gradient a backward returns whose shape is not its input's (validate_outputs in
// lib/src/autograd/engine.cpp, after checking that `shape` broadcasts to grad's shape), so the
// formulas of ex1 and ex3 never have to. Declared in kindling/autograd/engine.hpp (public:
// kd::autograd::sum_to, PyTorch's sum_to_size).
#include "kindling/autograd/engine.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  // BEGIN SOLUTION ex2: sum the leading dims away, and keep size-1 dims as size 1
  if (grad.shape() == shape) return grad;
  // grad: [..lead.., s0', s1', ...]   input: [s0, s1, ...]  with si == si' or si == 1
  const std::int64_t lead = grad.dim() - static_cast<std::int64_t>(shape.size());
  Shape dims;
  for (std::int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1 && grad.size(lead + static_cast<std::int64_t>(i)) != 1) dims.push_back(lead + i);
  }
  Tensor summed = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  return summed.reshape(shape);  // drops the (now size-1) leading dims
  // END SOLUTION
}

}  // namespace kindling::autograd
