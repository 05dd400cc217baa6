// The one non-template piece of loops.hpp: an operand's strides as seen from the output's shape.
#include "loops.hpp"

namespace kindling::detail {

// [snippet: broadcast-strides]
DimVec broadcast_byte_strides(const Tensor& t, const Shape& out_shape) {
  // Align t's dims with the output's from the right (NumPy broadcasting). A dim that t
  // lacks, or where t has size 1 against a larger output size, is read with stride 0:
  // the same element again.
  const Shape& shape = t.shape();
  const Strides& strides = t.strides();
  const std::size_t n = out_shape.size(), m = shape.size();
  const auto es = static_cast<std::int64_t>(t.element_size());
  DimVec out(n, 0);
  for (std::size_t i = 0; i < m && i < n; ++i) {
    const std::size_t td = m - 1 - i, od = n - 1 - i;
    if (shape[td] != 1 || out_shape[od] == 1) out[od] = strides[td] * es;
  }
  return out;
}
// [end]

void check_loop_dims(std::size_t ndim) {
  if (ndim > kMaxLoopDims) {
    throw ValueError("tensor iteration: " + std::to_string(ndim) + " dimensions is more than the " +
                     std::to_string(kMaxLoopDims) + " Kindling supports. Hint: flatten() dimensions you "
                     "do not need separately.");
  }
}

}  // namespace kindling::detail
