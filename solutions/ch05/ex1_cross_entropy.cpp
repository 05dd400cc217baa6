// ex1 — cross-entropy from the log-sum-exp trick.
#include "ch05/training_exercises.hpp"

namespace kindling::exercises::ch05 {

Tensor cross_entropy(const Tensor& logits, const Tensor& target) {
  // BEGIN SOLUTION ex1: loss_i = logsumexp(logits[i]) - logits[i, target[i]]; subtract the row max first
  if (logits.dim() != 2 || target.dim() != 1 || logits.size(0) != target.size(0)) {
    throw ShapeError("cross_entropy: expected logits [batch, classes] and target [batch], got " +
                     shape_str(logits.shape()) + " and " + shape_str(target.shape()));
  }
  // m: [batch, 1], the row max (a constant: the gradient of logsumexp does not depend on it).
  const Tensor m = logits.detach().max(1, /*keepdim=*/true).first;
  // lse: [batch] = m + log(sum(exp(x - m)))  — exp never sees a positive exponent.
  const Tensor lse = ((logits - m).exp().sum(1, /*keepdim=*/true)).log() + m;
  // picked: [batch], logits[i, target[i]], via a one-hot mask (differentiable with tensor ops).
  const std::int64_t classes = logits.size(1);
  const Tensor one_hot = (arange(0, classes, 1, {.dtype = kInt64}).unsqueeze(0) == target.unsqueeze(1))
                             .to(logits.dtype());
  const Tensor picked = (logits * one_hot).sum(1, /*keepdim=*/true);
  return (lse - picked).mean();
  // END SOLUTION
}

}  // namespace kindling::exercises::ch05
