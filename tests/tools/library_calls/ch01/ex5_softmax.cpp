// A "library call" submission (see ex1_strides.cpp): `return kindling::softmax(x, dim);` — the issue's
// "library" cheat.
#include "kindling/tensor.hpp"
#include "tensor/pieces.hpp"

namespace kindling::detail {
Tensor softmax_forward(const Tensor& x, std::int64_t dim, bool log) {
  return log ? kindling::log_softmax(x, dim) : kindling::softmax(x, dim);
}
}  // namespace kindling::detail
