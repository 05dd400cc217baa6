// The other losses, composed from differentiable tensor ops (their backward comes for free).
#include "kindling/train/losses.hpp"
#include "kindling/tensor/autocast_mode.hpp"

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::nn::functional {
namespace {

Tensor reduce(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None: return loss;
    case Reduction::Sum: return loss.sum();
    case Reduction::Mean: return loss.mean();
  }
  return loss;
}

void check_same_shape(const Tensor& input, const Tensor& target, const char* op) {
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
void check_broadcasts_to(const Tensor& input, const Tensor& w, const char* what, const char* op) {
  if (!w.defined()) return;
  const Shape b = broadcast_shapes(input.shape(), w.shape(), op);
  if (b != input.shape()) {
    throw ShapeError(std::string(op) + ": " + what + " of shape " + shape_str(w.shape()) + " would broadcast the input " +
                     shape_str(input.shape()) + " up to " + shape_str(b) + ". Hint: " + what + " must broadcast to "
                     "the input's shape, e.g. one value per class: shape [" +
                     std::to_string(input.dim() ? input.size(-1) : 1) + "].");
  }
}

}  // namespace

Tensor cross_entropy(const Tensor& input_in, const Tensor& target_in, const CrossEntropyLossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  if (!input.is_floating_point()) {
    throw DTypeError(std::string("cross_entropy: input must be float logits, got ") + dtype_name(input.dtype()) + ".");
  }
  const std::int64_t class_dim = input.dim() >= 2 ? 1 : 0;
  if (input.dim() == 0) throw ShapeError("cross_entropy: input must be [batch, classes] or [classes], got a 0-d tensor.");
  if (!target.defined() || target.dtype() != kInt64) {
    throw DTypeError("cross_entropy: target must hold int64 class indices, got " +
                     (target.defined() ? std::string(dtype_name(target.dtype())) + " " + shape_str(target.shape()) : "an undefined tensor") +
                     " (class probabilities as targets are not supported). Hint: labels from a DataLoader are int64; "
                     "convert others with .to(kd::kInt64).");
  }
  Tensor logp = input.log_softmax(class_dim);  // stable: x - max - log(sum(exp(x - max)))
  Tensor loss = nll_loss(logp, target, {.reduction = o.reduction, .ignore_index = o.ignore_index, .weight = o.weight});
  if (o.label_smoothing <= 0) return loss;
  if (o.label_smoothing > 1) {
    throw ValueError("cross_entropy: label_smoothing must be in [0, 1], got " + std::to_string(o.label_smoothing));
  }
  // Label smoothing: the target distribution is (1 - eps) one-hot + eps / C uniform, so the loss gains
  // eps / C * sum_c(-logp_c) per row (PyTorch 1.13's exact normalisation, ignored rows excluded).
  const std::int64_t classes = input.size(class_dim);
  Tensor smooth = o.weight.defined() ? -(logp * o.weight.to(logp.dtype())).sum(class_dim) : -logp.sum(class_dim);
  Tensor keep = target != o.ignore_index;
  smooth = where(keep, smooth, 0.0);
  Tensor reduced;
  if (o.reduction == Reduction::Mean && o.weight.defined()) {
    // Normalised by the total weight of the counted rows, like nll_loss. (Only the plain numbers are
    // read without grad; the division itself must stay in the graph.)
    double total = 0;
    {
      NoGradGuard no_grad;
      const auto t = target.to_vector<std::int64_t>();
      const auto w = o.weight.to_vector<double>();
      for (auto c : t)
        if (c != o.ignore_index) total += w[c];
    }
    reduced = smooth.sum() / total;
  } else if (o.reduction == Reduction::Mean) {
    // PyTorch divides by the number of rows that are not ignored, not by the batch size.
    double counted = 0;
    {
      NoGradGuard no_grad;
      counted = keep.sum().item<double>();
    }
    reduced = smooth.sum() / counted;
  } else {
    reduced = reduce(smooth, o.reduction);
  }
  return loss * (1 - o.label_smoothing) + reduced * (o.label_smoothing / static_cast<double>(classes));
}

Tensor mse_loss(const Tensor& input_in, const Tensor& target_in, Reduction r) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  check_same_shape(input, target, "mse_loss");
  Tensor diff = input - target;
  return reduce(diff * diff, r);
}

Tensor l1_loss(const Tensor& input_in, const Tensor& target_in, Reduction r) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  check_same_shape(input, target, "l1_loss");
  return reduce((input - target).abs(), r);
}

Tensor smooth_l1_loss(const Tensor& input_in, const Tensor& target_in, const SmoothL1LossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  check_same_shape(input, target, "smooth_l1_loss");
  if (o.beta < 0) throw ValueError("smooth_l1_loss: beta must be >= 0, got " + std::to_string(o.beta));
  if (o.beta == 0) return l1_loss(input, target, o.reduction);  // the limit, without dividing by 0
  Tensor z = (input - target).abs();
  return reduce(where(z < o.beta, z * z * (0.5 / o.beta), z - 0.5 * o.beta), o.reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input_in, const Tensor& target_in, const BCEWithLogitsLossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  check_same_shape(input, target, "binary_cross_entropy_with_logits");
  // Targets are probabilities in [0, 1], so a floating tensor (PyTorch refuses int64 targets too:
  // the loss would otherwise silently promote class indices, which is rarely what was meant).
  if (!target.is_floating_point() || !input.is_floating_point()) {
    throw DTypeError(std::string("binary_cross_entropy_with_logits: input and target must be floating-point, got input ") +
                     dtype_name(input.dtype()) + " and target " + dtype_name(target.dtype()) +
                     ". Hint: targets are probabilities; convert them with target.to(kd::kFloat32).");
  }
  check_broadcasts_to(input, o.weight, "weight", "binary_cross_entropy_with_logits");
  check_broadcasts_to(input, o.pos_weight, "pos_weight", "binary_cross_entropy_with_logits");
  // loss = (1 - y) x + L (log(1 + exp(-x))), written with m = max(-x, 0) so exp never overflows:
  //   log(1 + exp(-x)) = m + log(exp(-m) + exp(-x - m))
  Tensor m = (-input).relu();
  Tensor log1p_exp = ((-m).exp() + (-input - m).exp()).log() + m;
  Tensor loss;
  if (o.pos_weight.defined()) {
    Tensor log_weight = (o.pos_weight - 1) * target + 1;  // 1 + (pos_weight - 1) y
    loss = (1 - target) * input + log_weight * log1p_exp;
  } else {
    loss = (1 - target) * input + log1p_exp;
  }
  if (o.weight.defined()) loss = loss * o.weight;
  return reduce(loss, o.reduction);
}

}  // namespace kindling::nn::functional
