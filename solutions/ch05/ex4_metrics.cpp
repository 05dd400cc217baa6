// ch05.ex4 — counting correct predictions: the argmax of each row of logits against its label.
//
// train::count_correct (kindling/train/metrics.hpp); train::accuracy and the evaluation loops use it.
#include "kindling/train/metrics.hpp"

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::train {

std::int64_t count_correct(const Tensor& logits, const Tensor& labels) {
  // BEGIN SOLUTION ex4: check the shapes and dtype, then count argmax(1) == labels
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
  // END SOLUTION
}

}  // namespace kindling::train
