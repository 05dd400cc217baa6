// The losses composed from differentiable tensor ops (their backward comes for free): cross-entropy
// (class indices, K dimensions, class probabilities, label smoothing), MSE, L1 and KL divergence;
// smooth L1 and Huber with PyTorch's backward formulas. nll_loss and binary_cross_entropy (with
// logits too) have their own files.
#include "kindling/train/losses.hpp"
#include "kindling/tensor/autocast_mode.hpp"

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/autograd/function.hpp"
#include "tensor/device_ops.hpp"
#include "tensor/internal.hpp"
#include "train/losses/loss_helpers.hpp"

namespace kindling::nn::functional {

using loss_helpers::check_broadcasts_to;
using loss_helpers::check_reduction;
using loss_helpers::check_same_shape;
using loss_helpers::reduce;

namespace {

/// weight [C] viewed as [1, C, 1, ..., 1], so it broadcasts along the class dim of an input of `dim`
/// dims (dim 0 for a [C] input).
Tensor class_weight_view(const Tensor& weight, std::int64_t dim, std::int64_t class_dim) {
  Shape s(static_cast<std::size_t>(dim), 1);
  s[static_cast<std::size_t>(class_dim)] = weight.size(0);
  return weight.view(s);
}

// Soft labels: target holds a probability per class, the input's shape. The loss of a row is
// -sum_c w_c·target_c·logp_c; Mean divides by the number of rows (numel / classes), not by the
// weights (PyTorch 1.13's cross_entropy_loss_prob_target).
Tensor cross_entropy_soft(const Tensor& logp, const Tensor& target_in, const CrossEntropyLossOptions& o,
                          std::int64_t class_dim) {
  const std::int64_t classes = logp.size(class_dim);
  if (!target_in.is_floating_point()) {
    throw DTypeError(std::string("cross_entropy: expected floating point type for target with class probabilities, got ") +
                     dtype_name(target_in.dtype()) + " " + shape_str(target_in.shape()) +
                     ". Hint: a target of the input's shape is read as class probabilities (one-hot rows too: "
                     "convert them with .to(kd::kFloat32)); class indices have one dimension less ([batch] for a "
                     "[batch, classes] input).");
  }
  if (o.ignore_index >= 0) {
    throw ValueError("cross_entropy: ignore_index is not supported for floating point target (class "
                     "probabilities), got ignore_index=" + std::to_string(o.ignore_index) +
                     ". Hint: give the rows to ignore an all-zero target instead.");
  }
  Tensor target = target_in;
  if (o.label_smoothing > 0) target = target * (1 - o.label_smoothing) + o.label_smoothing / static_cast<double>(classes);
  Tensor prod = logp * target;  // [N, C, d...]
  if (o.weight.defined()) prod = prod * class_weight_view(o.weight.to(logp.dtype()), logp.dim(), class_dim);
  switch (o.reduction) {
    case Reduction::None: return -prod.sum(class_dim);
    case Reduction::Sum: return -prod.sum();
    default: {
      // An empty batch gives nan, as 0/0 does.
      const double rows = static_cast<double>(logp.numel()) / static_cast<double>(classes);
      return -prod.sum() / rows;
    }
  }
}

}  // namespace

namespace {
// On a device (tensor/device_ops.hpp): the mean cross-entropy of [N, C] logits and [N] int64 class
// indices as one op, forward and backward each a kernel of the device (PyTorch's CUDA build also
// fuses log_softmax and nll_loss into kernels). Every target must be a class index: the kernel
// reports one outside [0, C) (ignore_index's -100 included) instead of skipping it.
struct DeviceCrossEntropy : autograd::Function<DeviceCrossEntropy> {
  static constexpr const char* name = "NllLossBackward0";
  static constexpr bool once_differentiable = true;
  Tensor forward(autograd::Context& ctx, const Tensor& logits, const Tensor& target) {
    ctx.save_for_backward({logits, target});
    return kindling::detail::device_ops(logits)->cross_entropy_mean(logits, target);
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor logits = ctx.saved(0);
    return {kindling::detail::device_ops(logits)->cross_entropy_backward(logits, ctx.saved(1), grads[0]), Tensor()};
  }
};

bool on_device_kernel(const Tensor& input, const Tensor& target, const CrossEntropyLossOptions& o) {
  const auto* dev = kindling::detail::device_ops(input);
  return dev && dev->cross_entropy_mean && dev->cross_entropy_backward && input.dim() == 2 &&
         input.dtype() == kFloat32 && target.dtype() == kInt64 && target.dim() == 1 &&
         o.reduction == Reduction::Mean && !o.weight.defined() && o.label_smoothing <= 0;
}
}  // namespace

Tensor cross_entropy(const Tensor& input_in, const Tensor& target_in, const CrossEntropyLossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  // On a device: the fused kernels for the common case (mean, class indices); any other case keeps
  // the CPU ops' DeviceError.
  if (on_device_kernel(input, target, o)) {
    kindling::detail::check_same_device(input, target, "cross_entropy");
    return DeviceCrossEntropy::apply(input, target);
  }
  check_reduction(o.reduction, "cross_entropy");
  if (!input.is_floating_point()) {
    throw DTypeError(std::string("cross_entropy: input must be float logits, got ") + dtype_name(input.dtype()) + ".");
  }
  if (input.dim() == 0) throw ShapeError("cross_entropy: input must be [batch, classes] or [classes], got a 0-d tensor.");
  if (!target.defined()) throw ValueError("cross_entropy: target is an undefined tensor.");
  // Class dim 1 of [N, C] and [N, C, d1, ..., dk]; dim 0 of an unbatched [C].
  const std::int64_t class_dim = input.dim() >= 2 ? 1 : 0;
  const std::int64_t classes = input.size(class_dim);
  if (o.weight.defined() && (o.weight.dim() != 1 || o.weight.size(0) != classes)) {
    throw ShapeError("cross_entropy: weight tensor should be defined either for all " + std::to_string(classes) +
                     " classes or no classes but got weight tensor of shape: " + shape_str(o.weight.shape()) + ".");
  }
  if (o.label_smoothing > 1) {
    throw ValueError("cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: " +
                     std::to_string(o.label_smoothing));
  }
  Tensor logp = input.log_softmax(class_dim);  // stable: x - max - log(sum(exp(x - max)))
  // A target of the input's own shape holds class probabilities (PyTorch's rule).
  if (target.shape() == input.shape()) return cross_entropy_soft(logp, target, o, class_dim);
  if (target.dtype() != kInt64) {
    throw DTypeError("cross_entropy: target must hold int64 class indices (or class probabilities of the input's "
                     "shape " + shape_str(input.shape()) + "), got " + std::string(dtype_name(target.dtype())) + " " +
                     shape_str(target.shape()) + ". Hint: labels from a DataLoader are int64; convert others with "
                     ".to(kd::kInt64).");
  }
  Tensor loss = nll_loss(logp, target, {.reduction = o.reduction, .ignore_index = o.ignore_index, .weight = o.weight});
  if (o.label_smoothing <= 0) return loss;  // PyTorch 1.13 also reads a negative value as none
  // Label smoothing: the target distribution is (1 - eps) one-hot + eps / C uniform, so the loss gains
  // eps / C * sum_c(-w_c·logp_c) per row (PyTorch 1.13's exact normalisation, ignored rows excluded).
  Tensor smooth = o.weight.defined()
                      ? -(logp * class_weight_view(o.weight.to(logp.dtype()), logp.dim(), class_dim)).sum(class_dim)
                      : -logp.sum(class_dim);  // [N, d...] like the target
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
        if (c != o.ignore_index) total += w[c];  // nll_loss above checked every counted c
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
  check_reduction(r, "mse_loss");
  Tensor diff = input - target;
  return reduce(diff * diff, r);
}

Tensor l1_loss(const Tensor& input_in, const Tensor& target_in, Reduction r) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  check_same_shape(input, target, "l1_loss");
  check_reduction(r, "l1_loss");
  return reduce((input - target).abs(), r);
}

namespace {
// Smooth L1 (k = beta) and Huber (k = delta), element by element, d = x - y:
//   smooth L1: |d| < k ? d²/(2k) : |d| - k/2         Huber: |d| < k ? d²/2 : k·(|d| - k/2)
//   dx = g · (d <= -k ? -s : d >= k ? s : d/k)   with s = 1 (smooth L1) or k (Huber, d·g inside);
//   dy the same with x and y swapped
// PyTorch's smooth_l1_backward / huber_backward, branch for branch: an infinite error gets the
// linear part's slope (the composition's would be 0 · inf = NaN), a NaN gives NaN, and with beta = 0
// smooth L1 is L1 whose slope at d = 0 is -1 (PyTorch's d <= -0 test) and at NaN is NaN.
template <bool Huber>
struct RobustLoss : autograd::Function<RobustLoss<Huber>> {
  static constexpr const char* name = Huber ? "HuberLossBackward0" : "SmoothL1LossBackward0";
  double k = 1.0;
  Tensor forward(autograd::Context& ctx, const Tensor& input, const Tensor& target, double k_) {
    k = k_;
    ctx.save_for_backward({input, target});
    const Tensor z = (input - target).abs();
    if (Huber) return where(z < k, z * z * 0.5, (z - 0.5 * k) * k);
    if (k == 0) return z;  // the limit, without dividing by 0
    return where(z < k, z * z * (0.5 / k), z - 0.5 * k);
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor& g = grads[0];
    const double slope = Huber ? k : 1.0;
    // The gradient for a first argument a against b (PyTorch computes the target's by swapping the
    // two, which differs from -dx only on the boundaries: at d = 0 with beta = 0 both are -g).
    // Recorded under create_graph, so differentiable again.
    auto grad_of = [&](const Tensor& a, const Tensor& b) {
      const Tensor d = a - b;
      // Inside |d| < k (never reached when k = 0 but for a NaN, where d · g is NaN as it should be).
      const Tensor inside = Huber || k == 0 ? d * g : d * (g / k);
      return where(d <= -k, g * -slope, where(d >= k, g * slope, inside));
    };
    const Tensor x = ctx.saved(0), y = ctx.saved(1);
    return {ctx.needs_input_grad(0) ? grad_of(x, y) : Tensor(), ctx.needs_input_grad(1) ? grad_of(y, x) : Tensor()};
  }
};
}  // namespace

Tensor smooth_l1_loss(const Tensor& input_in, const Tensor& target_in, const SmoothL1LossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  check_same_shape(input, target, "smooth_l1_loss");
  check_reduction(o.reduction, "smooth_l1_loss");
  if (o.beta < 0) throw ValueError("smooth_l1_loss: beta must be >= 0, got " + std::to_string(o.beta));
  return reduce(RobustLoss<false>::apply(input, target, o.beta), o.reduction);
}

Tensor huber_loss(const Tensor& input_in, const Tensor& target_in, const HuberLossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  check_same_shape(input, target, "huber_loss");
  check_reduction(o.reduction, "huber_loss");
  if (!(o.delta > 0)) {
    throw ValueError("huber_loss does not support non-positive values for delta, got delta=" + std::to_string(o.delta) +
                     ". Hint: delta is where the loss turns from quadratic to linear; 1.0 is the default.");
  }
  // z = |x - y|: 0.5·z² inside delta, delta·(z - 0.5·delta) outside -- the two meet with equal slope.
  return reduce(RobustLoss<true>::apply(input, target, o.delta), o.reduction);
}

Tensor kl_div(const Tensor& input_in, const Tensor& target_in, const KLDivLossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  check_same_shape(input, target, "kl_div");
  if (!input.is_floating_point() || !target.is_floating_point()) {
    throw DTypeError(std::string("kl_div: input and target must be floating-point, got input ") + dtype_name(input.dtype()) +
                     " and target " + dtype_name(target.dtype()) + ". Hint: input holds log-probabilities "
                     "(x.log_softmax(1)), target probabilities.");
  }
  Tensor loss;  // per element, the input's shape
  if (o.log_target) {
    loss = target.exp() * (target - input);
  } else {
    // target·log(target) with 0·log(0) = 0: xlogy. A negative target gives nan, and the gradient
    // with respect to a target of exactly 0 is nan (log 0 + 0/0), both as in PyTorch 1.13.
    loss = xlogy(target, target) - target * input;
  }
  if (o.reduction != Reduction::BatchMean) return reduce(loss, o.reduction);
  // The KL divergence per sample: the sum over everything, divided by the batch size (a 0-d input
  // is its own batch of one).
  Tensor total = loss.sum();
  return input.dim() == 0 ? total : total / static_cast<double>(input.size(0));
}

}  // namespace kindling::nn::functional
