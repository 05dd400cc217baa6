// Cheat "ctor" (see ../../README.md): a static constructor runs before main in every test process of the
// program. It prints a forged "passed" record and leaves, before any test can fail.
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

#include <cstdio>
#include <exception>

namespace {
struct Forge {
  Forge() {
    std::printf("{\"passed\": true, \"assertions_failed\": 0}\n");
    std::fflush(stdout);
    std::terminate();
  }
};
Forge forge;   // constructed before main: .init_array
}  // namespace

namespace kindling {
Strides contiguous_strides(const Shape& shape) { return Strides(shape.size(), 1); }
bool Tensor::is_contiguous() const { return true; }
}  // namespace kindling
