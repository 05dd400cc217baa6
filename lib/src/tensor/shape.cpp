// Shapes: printing, element counts, negative dims. See pieces.hpp for the strides and broadcasting pieces.
#include "kindling/tensor/shape.hpp"

#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling {

std::string shape_str(IntArrayRef shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::int64_t numel_of(IntArrayRef shape) {
  // Overflow-checked: a shape such as [2^32, 2^32] must not wrap to 0 (checked.hpp explains why).
  std::int64_t n = 1;
  for (auto s : shape) {
    if (s == 0) return 0;
    if (__builtin_mul_overflow(n, s, &n)) return checked::numel(shape, "numel");  // throws ShapeError
  }
  return n;
}

// contiguous_strides and broadcast_shapes are chapter 1's exercises 1 and 3: their definitions are in
// the answer files (solutions/ch01/ or your exercises/ch01/), compiled into this layer.

std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim, const char* op) {
  const std::int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  if (dim < lo || dim > hi) {
    throw IndexError(std::string(op) + ": dimension " + std::to_string(dim) + " is out of range for a " +
                     std::to_string(ndim) + "-d tensor (expected a dim in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]).");
  }
  return dim < 0 ? dim + std::max<std::int64_t>(ndim, 1) : dim;
}

}  // namespace kindling
