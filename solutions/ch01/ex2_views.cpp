// ch01.ex2 — views: permute and select make a new TensorImpl over the same storage.
//
// Tensor::permute (and so every transposed image batch) and Tensor::select (x[i], x.index({i, ...}),
// unbind) call these and record the view for autograd. Declared in lib/src/tensor/pieces.hpp.
#include "tensor/pieces.hpp"

#include <string>

namespace kindling::detail {

Tensor permute_view(const Tensor& x, IntArrayRef dims) {
  // BEGIN SOLUTION ex2: reorder sizes and strides together; every dimension exactly once
  const std::int64_t n = x.dim();
  if (static_cast<std::int64_t>(dims.size()) != n) {
    throw ShapeError("permute: got " + std::to_string(dims.size()) + " dims " + shape_str(dims) + " for a " +
                     std::to_string(n) + "-d tensor of shape " + shape_str(x.shape()) +
                     ". Hint: list every dimension exactly once, e.g. permute({2, 0, 1}).");
  }
  Shape shape(n);
  Strides strides(n);
  std::vector<bool> seen(n, false);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t d = wrap_dim(dims[i], n, "permute");
    if (seen[d]) {
      throw ShapeError("permute: dimension " + std::to_string(d) + " appears twice in " + shape_str(dims) +
                       ". Hint: list every dimension exactly once.");
    }
    seen[d] = true;
    shape[i] = x.shape()[d];
    strides[i] = x.strides()[d];
  }
  return make_view(x, shape, strides, x.storage_offset());
  // END SOLUTION
}

Tensor select_view(const Tensor& x, std::int64_t dim, std::int64_t index) {
  // BEGIN SOLUTION ex2: drop the dimension, move the offset by index * stride
  if (x.dim() == 0) {
    throw IndexError("select: cannot index a 0-d tensor (it has no dimensions). Hint: use item() to read "
                     "its value.");
  }
  const std::int64_t d = wrap_dim(dim, x.dim(), "select");
  const std::int64_t size = x.shape()[d];
  if (index < -size || index >= size) {
    throw IndexError("select: index " + std::to_string(index) + " is out of range for dimension " +
                     std::to_string(d) + " of size " + std::to_string(size) + " (shape " + shape_str(x.shape()) +
                     "). Hint: valid indices are " + std::to_string(-size) + ".." + std::to_string(size - 1) + ".");
  }
  if (index < 0) index += size;  // Python's x[-1] is the last element
  Shape shape = x.shape();
  Strides strides = x.strides();
  const std::int64_t offset = x.storage_offset() + index * strides[d];
  shape.erase(shape.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(x, shape, strides, offset);
  // END SOLUTION
}

}  // namespace kindling::detail
