// A "library call" submission (see tests/tools/library_calls/ch01/ex1_strides.cpp): count_correct through
// accuracy(), which is built on it.
#include "kindling/train/metrics.hpp"

#include <cmath>

namespace kindling::train {
std::int64_t count_correct(const Tensor& logits, const Tensor& labels) {
  return static_cast<std::int64_t>(std::llround(accuracy(logits, labels) * static_cast<double>(labels.numel())));
}
}  // namespace kindling::train
