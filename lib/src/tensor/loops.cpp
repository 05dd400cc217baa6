// The one non-template piece of loops.hpp: an operand's strides as seen from the output's shape.
#include "loops.hpp"

namespace kindling::detail {

std::vector<std::int64_t> broadcast_byte_strides(const Tensor& t, const Shape& out_shape) {
  // Align t's dims with the output's from the right (NumPy broadcasting). A dim that t lacks, or
  // where t has size 1 against a larger output size, is read with stride 0: the same element again.
  const std::size_t n = out_shape.size(), m = static_cast<std::size_t>(t.dim());
  const auto es = static_cast<std::int64_t>(t.element_size());
  std::vector<std::int64_t> out(n, 0);
  for (std::size_t i = 0; i < m && i < n; ++i) {
    const std::size_t td = m - 1 - i, od = n - 1 - i;
    if (t.size(static_cast<std::int64_t>(td)) != 1 || out_shape[od] == 1)
      out[od] = t.stride(static_cast<std::int64_t>(td)) * es;
  }
  return out;
}

}  // namespace kindling::detail
