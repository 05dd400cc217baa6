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

Strides contiguous_strides(const Shape& shape) {
  Strides strides(shape.size());
  std::int64_t step = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    // Only an empty tensor can get here with a product past int64 (the storage size of any other is
    // checked first); its strides are never used, so saturate instead of overflowing (UB).
    if (__builtin_mul_overflow(step, std::max<std::int64_t>(shape[i], 1), &step)) step = INT64_MAX;
  }
  return strides;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Align from the right: a missing leading dimension counts as size 1.
    const std::int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (sa != sb && sa != 1 && sb != 1) {
      throw ShapeError(std::string(op) + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                       " cannot be broadcast: dimension " + std::to_string(i) + " (from the left, after "
                       "aligning the shapes on the right) has sizes " + std::to_string(sa) + " and " +
                       std::to_string(sb) + ". Sizes must be equal or one of them must be 1; "
                       "use unsqueeze()/view() to add a size-1 dimension where you meant one.");
    }
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

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
