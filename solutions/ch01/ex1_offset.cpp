// ex1 — where does an element live? Strides turn an index into a position in the flat storage.
#include "ch01/tensor_exercises.hpp"

#include <algorithm>
#include <string>

namespace kindling::exercises::ch01 {

Strides row_major_strides(const Shape& shape) {
  // BEGIN SOLUTION ex1: row-major strides (the last dimension moves fastest)
  // shape {2, 3, 4}: moving one step along dim 2 moves 1 element, along dim 1 a row of 4, along dim 0
  // a whole 3x4 matrix of 12. Walk from the right, multiplying the sizes seen so far.
  Strides strides(shape.size());
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= std::max<std::int64_t>(shape[d], 1);  // a size-0 dimension must not zero the strides
  }
  return strides;
  // END SOLUTION
}

std::int64_t element_offset(const Tensor& t, const std::vector<std::int64_t>& index) {
  // BEGIN SOLUTION ex1: storage_offset + sum(index[d] * stride[d]), with checks
  if (static_cast<std::int64_t>(index.size()) != t.dim()) {
    throw IndexError("element_offset: " + std::to_string(index.size()) + " indices for a " +
                     std::to_string(t.dim()) + "-d tensor of shape " + shape_str(t.shape()) +
                     " (give exactly one index per dimension)");
  }
  std::int64_t offset = t.storage_offset();
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    const std::int64_t size = t.size(d);
    std::int64_t i = index[d];
    if (i < -size || i >= size) {
      throw IndexError("element_offset: index " + std::to_string(i) + " is out of range for dimension " +
                       std::to_string(d) + " of size " + std::to_string(size) + " (shape " +
                       shape_str(t.shape()) + ")");
    }
    if (i < 0) i += size;  // Python's x[-1] is the last element
    offset += i * t.stride(d);
  }
  return offset;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch01
