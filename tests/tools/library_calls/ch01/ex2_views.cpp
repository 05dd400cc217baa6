// A "library call" submission (see ex1_strides.cpp): permute and select through the library.
#include "kindling/tensor.hpp"
#include "tensor/pieces.hpp"

namespace kindling::detail {
Tensor permute_view(const Tensor& x, IntArrayRef dims) { return x.permute(dims).detach(); }
Tensor select_view(const Tensor& x, std::int64_t dim, std::int64_t index) { return x.select(dim, index).detach(); }
}  // namespace kindling::detail
