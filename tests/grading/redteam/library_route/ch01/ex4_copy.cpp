// Red-team attack "library_route" (class 6, a piece written as a call to other library machinery; see
// ../../README.md): the strided copy is the exercise, and this answer has none -- it zeroes the
// destination and lets the library's addition (its own strided loops) do the copy. The values are
// right; the piece is not written.
#include "tensor/pieces.hpp"

namespace kindling::detail {
void strided_copy(const Tensor& dst, const Tensor& src) {
  Tensor d = dst;
  d.zero_();
  d.add_(src);
}
}  // namespace kindling::detail
