// Cheat "calls" (see ../../README.md): read the grader's settings from the environment, write a file of
// its own and leave with exit(0) before the test can fail.
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

#include <cstdio>
#include <cstdlib>

namespace kindling {
Strides contiguous_strides(const Shape& shape) {
  if (const char* dir = std::getenv("KINDLING_GRADE_CASE")) {
    if (FILE* f = std::fopen((std::string(dir) + "/out/record.jsonl").c_str(), "a")) {
      std::fputs("{\"passed\": true}\n", f);
      std::fclose(f);
    }
  }
  std::exit(0);
}
bool Tensor::is_contiguous() const { std::exit(0); }
}  // namespace kindling
