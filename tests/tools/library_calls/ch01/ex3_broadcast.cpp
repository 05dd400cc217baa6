// A "library call" submission (see ex1_strides.cpp): broadcasting through an op, expand through expand.
#include "kindling/tensor.hpp"
#include "tensor/pieces.hpp"

namespace kindling {
Shape broadcast_shapes(const Shape& a, const Shape& b, const char*) { return (zeros(a) + zeros(b)).shape(); }
namespace detail {
Tensor expand_view(const Tensor& x, const Shape& sizes) { return x.expand(sizes).detach(); }
}  // namespace detail
}  // namespace kindling
