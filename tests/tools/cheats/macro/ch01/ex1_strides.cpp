// Cheat "macro" (see ../../README.md): turn every check into a success — here, and in headers named like
// the tests' own (grading.hpp, ch01_grading.hpp) next to this file, hoping a test includes them.
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

#define CHECK(...) SUCCEED()
#define REQUIRE(...) SUCCEED()

namespace kindling {
Strides contiguous_strides(const Shape& shape) { return Strides(shape.size(), 1); }
bool Tensor::is_contiguous() const { return true; }
}  // namespace kindling
