// Accuracy: argmax over classes, compared with the labels.
#include "kindling/train/metrics.hpp"

#include "kindling/autograd/grad_mode.hpp"

namespace kindling::train {

std::int64_t count_correct(const Tensor& logits, const Tensor& labels) {
  if (logits.dim() != 2 || labels.dim() != 1 || logits.size(0) != labels.size(0)) {
    throw ShapeError("count_correct: expected logits [batch, classes] and labels [batch], got " +
                     shape_str(logits.shape()) + " and " + shape_str(labels.shape()) + ".");
  }
  if (labels.dtype() != kInt64) {
    throw DTypeError(std::string("count_correct: labels must be int64 class indices, got ") +
                     dtype_name(labels.dtype()) + ".");
  }
  NoGradGuard no_grad;
  return (logits.argmax(1) == labels).sum().item<std::int64_t>();
}

double accuracy(const Tensor& logits, const Tensor& labels) {
  const std::int64_t n = labels.numel();
  return n ? static_cast<double>(count_correct(logits, labels)) / static_cast<double>(n) : 0.0;
}

}  // namespace kindling::train
