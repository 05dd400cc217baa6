// ch01.ex1 — the strides of a new tensor, and asking whether a tensor is laid out row-major.
//
// Every tensor the library creates (make_tensor: zeros, empty, randn, the result of every op) takes its
// strides from contiguous_strides; contiguous(), view(), matmul and many kernels first ask
// is_contiguous(). Declared in kindling/tensor/shape.hpp and kindling/tensor/tensor.hpp.
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

#include <algorithm>
#include <cstdint>

namespace kindling {

Strides contiguous_strides(const Shape& shape) {
  // BEGIN SOLUTION ex1: row-major strides, the last dimension moving fastest
  // shape {2, 3, 4}: one step along dim 2 moves 1 element, along dim 1 a row of 4, along dim 0 a whole
  // 3x4 matrix of 12. Walk from the right, multiplying the sizes seen so far.
  Strides strides(shape.size());
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    // A size-0 dimension must not zero the strides to its left. Only an empty tensor can get past
    // int64 here (any other's storage size is checked first); its strides are never used, so
    // saturate instead of overflowing (undefined behaviour).
    if (__builtin_mul_overflow(step, std::max<std::int64_t>(shape[d], 1), &step)) step = INT64_MAX;
  }
  return strides;
  // END SOLUTION
}

bool Tensor::is_contiguous() const {
  // BEGIN SOLUTION ex1: compare the strides with row-major ones, ignoring size-1 dimensions
  // Sizes of 1 may have any stride (PyTorch agrees): only dims with size > 1 must be row-major. An empty
  // tensor has nothing to lay out, so it is contiguous whatever its strides (as in PyTorch).
  // Asked before nearly every kernel, so read the geometry once.
  const Shape& sizes = shape();
  const Strides& steps = strides();
  for (std::int64_t size : sizes)
    if (size == 0) return true;
  std::int64_t expected = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (steps[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
  // END SOLUTION
}

}  // namespace kindling
