// Accuracy: argmax over classes, compared with the labels.
#include "kindling/train/metrics.hpp"

#include "kindling/autograd/grad_mode.hpp"

namespace kindling::train {

// count_correct is chapter 5's exercise 4 (train/pieces.hpp): in the answer file.

double accuracy(const Tensor& logits, const Tensor& labels) {
  const std::int64_t n = labels.numel();
  return n ? static_cast<double>(count_correct(logits, labels)) / static_cast<double>(n) : 0.0;
}

}  // namespace kindling::train
