// A "library call" submission (see tests/tools/library_calls/ch01/ex1_strides.cpp): Linear's forward through
// functional::linear — which calls this very function — and nothing else written.
#include "kindling/tensor/error.hpp"
#include "nn/pieces.hpp"

namespace kindling::nn {
Linear::Linear(std::int64_t in, std::int64_t out, LinearOptions) : in_features(in), out_features(out) {
  throw NotImplemented("ch03.ex1");
}
void Linear::reset_parameters() { throw NotImplemented("ch03.ex1"); }
namespace detail {
Tensor linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return functional::linear(x, weight, bias);
}
}  // namespace detail
}  // namespace kindling::nn
