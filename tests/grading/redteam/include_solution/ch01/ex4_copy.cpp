// Red-team attack "include_solution" (class 3, the compile step sees the grading machine; see
// ../../README.md): the answer file includes the reference answer when the compiler can see it. Graded
// in the instructor's full tree, solutions/ sits next to exercises/; in a handout it is absent and the
// stub below is compiled instead. (Depths: exercises/ch01/ and tests/grading/redteam/<attack>/ch01/.)
#if __has_include("../../solutions/ch01/ex4_copy.cpp")
#include "../../solutions/ch01/ex4_copy.cpp"
#elif __has_include("../../../../../solutions/ch01/ex4_copy.cpp")
#include "../../../../../solutions/ch01/ex4_copy.cpp"
#else
#include "kindling/tensor/error.hpp"
#include "tensor/pieces.hpp"
namespace kindling::detail {
void strided_copy(const Tensor&, const Tensor&) { throw NotImplemented("ch01.ex4 (no reference to include)"); }
}  // namespace kindling::detail
#endif
