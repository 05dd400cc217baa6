// A "library call" submission (see tests/tools/library_calls/ch01/ex1_strides.cpp): dropout through
// nn::Dropout — whose forward calls this very function.
#include "kindling/nn/dropout.hpp"
#include "kindling/nn/functional.hpp"

namespace kindling::nn::functional {
Tensor dropout(const Tensor& x, double p, bool training) {
  Dropout d(p);
  d.train(training);
  return d(x);
}
}  // namespace kindling::nn::functional
