// Cheat "replace" (see ../../README.md): besides its own piece, an answer file defines another exercise's
// piece and a library function, hoping the linker takes its versions (full marks for ex1 for free).
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"
#include "tensor/pieces.hpp"

namespace kindling {
Strides contiguous_strides(const Shape& shape) { return Strides(shape.size(), 1); }
__attribute__((weak)) const char* dtype_name(DType) { return "float32"; }
namespace detail {
void strided_copy(const Tensor& dst, const Tensor& src) {}
}  // namespace detail
}  // namespace kindling
