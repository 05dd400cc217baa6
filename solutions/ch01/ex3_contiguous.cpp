// ex3 — contiguous() by hand: read a strided view element by element into a fresh row-major tensor.
#include "ch01/tensor_exercises.hpp"

#include <cstring>

namespace kindling::exercises::ch01 {

Tensor contiguous_copy(const Tensor& t) {
  // BEGIN SOLUTION ex3: walk t's strides with an odometer, copying one element at a time
  Tensor out = empty(t.shape(), {.dtype = t.dtype()});  // fresh storage, row-major strides
  const std::int64_t n = t.numel();
  if (n == 0) return out;
  // Bytes, not a C++ type: the copy works for every dtype (4 bytes for float32, 1 for bool, ...).
  const std::size_t bytes = t.element_size();
  const char* src = static_cast<const char*>(t.raw_data_ptr());  // element [0, 0, ...]
  char* dst = static_cast<char*>(out.raw_data_ptr());
  const std::int64_t ndim = t.dim();
  std::vector<std::int64_t> index(ndim, 0);  // the odometer: which element we are at
  std::int64_t offset = 0;                   // sum(index[d] * stride[d]), kept up to date
  for (std::int64_t k = 0; k < n; ++k) {
    std::memcpy(dst + k * bytes, src + offset * static_cast<std::int64_t>(bytes), bytes);
    // Advance the last dimension; when it wraps, carry into the one before (like 0:59 -> 1:00).
    for (std::int64_t d = ndim - 1; d >= 0; --d) {
      if (++index[d] < t.size(d)) {
        offset += t.stride(d);
        break;
      }
      offset -= (index[d] - 1) * t.stride(d);
      index[d] = 0;
    }
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch01
