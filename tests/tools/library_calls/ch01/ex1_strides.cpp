// A "library call" submission for the grader's own tests: each piece returns what the library's public
// function gives. In the library model that function *is* the piece, so the call recurses: 0 points.
#include "kindling/tensor.hpp"

namespace kindling {
Strides contiguous_strides(const Shape& shape) { return kindling::zeros(shape).strides(); }
bool Tensor::is_contiguous() const { return contiguous().shares_storage(*this); }
}  // namespace kindling
