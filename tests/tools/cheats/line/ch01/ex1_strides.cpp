// Cheat "line" (see ../../README.md): pretend to be a graded test file and add a test of its own worth
// 10000 points; the answers themselves are wrong.
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

#line 1 "../tests/grading/ch01/ex1_strides_test.cpp"
#include <catch2/catch.hpp>

TEST_CASE("strides: free points", "[ch01][ex1][pts=10000]") { CHECK(true); }
TEST_CASE("strides: every new tensor is row-major, again", "[ch01][ex1][pts=10000]") { CHECK(true); }

namespace kindling {
Strides contiguous_strides(const Shape& shape) { return Strides(shape.size(), 1); }
bool Tensor::is_contiguous() const { return true; }
}  // namespace kindling
