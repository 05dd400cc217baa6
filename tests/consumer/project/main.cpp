// Uses an installed Kindling: makes a tensor and reduces it (chapter 1's layer), then runs a Linear
// layer (chapter 3's, which pulls in autograd), checking results against plain loops.
#include <kindling/kindling.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>

namespace kd = kindling;

// The project sets no C++ standard: Kindling::kindling's exported cxx_std_20 must have chosen it.
static_assert(__cplusplus >= 202002L, "Kindling::kindling should carry cxx_std_20 to its consumers");

int main() {
  const std::int64_t n = 6;
  kd::Tensor x = kd::arange(n).reshape({2, 3});  // x: [2, 3], int64
  std::cout << "Kindling " << kd::version << "\n" << x << "\n";

  std::int64_t expected = 0;
  for (std::int64_t i = 0; i < n; ++i) expected += i;
  const auto total = x.sum().item<std::int64_t>();
  if (x.dim() != 2 || total != expected) {
    std::cerr << "consumer: wrong result: dim " << x.dim() << ", sum " << total << " (expected " << expected
              << ")\n";
    return 1;
  }
  std::cout << "sum = " << total << "\n";

  kd::nn::Linear fc(4, 2);                 // weight: [2, 4], bias: [2]
  kd::Tensor y = fc(kd::ones({3, 4}));     // y: [3, 2]
  // Each row of y is weight.sum(1) + bias, computed here by hand from the parameters.
  for (std::int64_t j = 0; j < 2; ++j) {
    double want = fc.bias.select(0, j).item<float>();
    for (std::int64_t k = 0; k < 4; ++k) want += fc.weight.select(0, j).select(0, k).item<float>();
    double got = y.select(0, 2).select(0, j).item<float>();
    if (y.dim() != 2 || y.size(0) != 3 || y.size(1) != 2 || std::abs(got - want) > 1e-5) {
      std::cerr << "consumer: Linear gave " << got << ", expected " << want << "\n";
      return 1;
    }
  }
  std::cout << "Linear(4, 2) on ones([3, 4]):\n" << y << "\n";
  return 0;
}
