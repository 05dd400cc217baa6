// ex2 — the gradient of a broadcast input: sum over the dimensions broadcasting expanded.
#include "ch02/autograd_exercises.hpp"

#include <string>

namespace kindling::exercises::ch02 {

Tensor unbroadcast(const Tensor& grad, const Shape& shape) {
  // BEGIN SOLUTION ex2: sum over the extra leading dims, and (keepdim) over dims where shape has size 1
  // grad: [2, 3, 4], shape [3, 1] -> sum over dim 0 (missing in shape) and dim 2 (size 1 in shape).
  const Shape& g = grad.shape();
  const std::size_t lead = g.size() >= shape.size() ? g.size() - shape.size() : 0;
  bool ok = shape.size() <= g.size();
  for (std::size_t i = 0; ok && i < shape.size(); ++i) ok = shape[i] == g[lead + i] || shape[i] == 1;
  if (!ok) {
    throw ShapeError("unbroadcast: a tensor of shape " + shape_str(shape) + " cannot have been broadcast to the " +
                     "gradient's shape " + shape_str(g) + "; sizes must match from the right, or be 1");
  }
  std::vector<std::int64_t> keep_dims;  // size-1 dims of `shape` that were expanded
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && g[lead + i] != 1) keep_dims.push_back(static_cast<std::int64_t>(lead + i));
  Tensor out = grad;
  if (!keep_dims.empty()) out = out.sum(keep_dims, /*keepdim=*/true);
  if (lead > 0) {
    std::vector<std::int64_t> leading(lead);
    for (std::size_t i = 0; i < lead; ++i) leading[i] = static_cast<std::int64_t>(i);
    out = out.sum(leading, /*keepdim=*/false);
  }
  return out.reshape(shape);  // same numbers; only a 0-d target needs it (sum over all dims is 0-d already)
  // END SOLUTION
}

}  // namespace kindling::exercises::ch02
