// Chapter 1 — printing tensors like PyTorch: dtypes, summaries of big tensors, print
// options.
#include <kindling/tensor.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  kd::manual_seed(0);
  // [snippet: print]
  std::cout << kd::tensor({{1.0, 2.5}, {-3.0, 4.0}}) << "\n";  // float32
  std::cout << kd::arange(5) << "\n";                          // int64
  std::cout << (kd::arange(5) > 2) << "\n";                    // bool
  std::cout << kd::ones({2, 2}, {.dtype = kd::kFloat64}) << "\n";
  std::cout << kd::scalar_tensor(3.5) << "\n";  // 0-d
  std::cout << kd::zeros({0, 3}) << "\n";       // empty
  // [end]

  // [snippet: summary]
  // more than 1000 elements: summarised
  std::cout << kd::arange(10000).view({100, 100}) << "\n";
  // [end]

  // [snippet: options]
  kd::set_printoptions({.precision = 2});
  std::cout << kd::randn({2, 3}) << "\n";
  kd::set_printoptions({});  // back to the defaults
  // [end]
}
