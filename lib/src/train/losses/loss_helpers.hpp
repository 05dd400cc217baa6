#pragma once
// Internal: what the losses share -- the reduction, and the shape checks with their messages.
#include <string>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::nn::functional::loss_helpers {


inline Tensor reduce(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None: return loss;
    case Reduction::Sum: return loss.sum();
    case Reduction::Mean: return loss.mean();
    case Reduction::BatchMean: break;  // refused by check_reduction
  }
  return loss;
}

inline void check_same_shape(const Tensor& input, const Tensor& target, const char* op) {
  if (input.shape() != target.shape()) {
    // PyTorch only warns and broadcasts here, which silently computes the wrong loss for
    // [batch, 1] predictions against [batch] targets. We refuse.
    throw ShapeError(std::string(op) + ": input " + shape_str(input.shape()) + " and target " +
                     shape_str(target.shape()) + " must have the same shape (Kindling refuses on purpose where PyTorch "
                     "only warns and broadcasts). Hint: a [batch, 1] prediction against a [batch] target would "
                     "broadcast to [batch, batch]; use .squeeze(1) or .view().");
  }
}

/// weight / pos_weight broadcast *to* the input's shape, never beyond it (PyTorch refuses a
/// [2, 4, 3] weight for a [4, 3] input: the loss would silently grow a batch dimension).
inline void check_broadcasts_to(const Tensor& input, const Tensor& w, const char* what, const char* op) {
  if (!w.defined()) return;
  const Shape b = broadcast_shapes(input.shape(), w.shape(), op);
  if (b != input.shape()) {
    throw ShapeError(std::string(op) + ": " + what + " of shape " + shape_str(w.shape()) + " would broadcast the input " +
                     shape_str(input.shape()) + " up to " + shape_str(b) + ". Hint: " + what + " must broadcast to "
                     "the input's shape, e.g. one value per class: shape [" +
                     std::to_string(input.dim() ? input.size(-1) : 1) + "].");
  }
}

/// A weight (class weights, pos_weight) is a constant of the loss: PyTorch refuses one that requires
/// grad rather than silently give it no gradient.
inline void check_not_differentiable(const Tensor& w, const char* what, const char* op) {
  if (w.defined() && w.requires_grad() && autograd::is_grad_enabled()) {
    throw AutogradError(std::string(op) + ": the loss is not differentiable with respect to argument '" + what +
                        "'. This input cannot have requires_grad true. Hint: pass " + what +
                        ".detach() (a constant), or compute the weighted loss with tensor ops if " + what +
                        " is learned.");
  }
}

/// Every loss but kl_div refuses Reduction::BatchMean (PyTorch: "batchmean is not a valid value for
/// reduction").
inline void check_reduction(Reduction r, const char* op) {
  if (r == Reduction::BatchMean) {
    throw ValueError(std::string(op) + ": BatchMean is not a valid value for reduction (only kl_div has it). "
                     "Hint: use Reduction::Mean, Sum or None.");
  }
}

}  // namespace kindling::nn::functional::loss_helpers
