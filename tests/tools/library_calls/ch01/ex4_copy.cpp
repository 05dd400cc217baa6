// A "library call" submission (see ex1_strides.cpp): the copy through copy_().
#include "kindling/tensor.hpp"
#include "tensor/pieces.hpp"

namespace kindling::detail {
void strided_copy(const Tensor& dst, const Tensor& src) { Tensor(dst).copy_(src); }
}  // namespace kindling::detail
