// Binary cross-entropy of probabilities, forward and backward side by side. It is not a composition
// of tensor ops because PyTorch clamps each log at -100 (so a probability of exactly 0 or 1 gives a
// finite loss) and clamps the denominator of the gradient, neither of which a composition reproduces.
//
//   forward:  loss = -w · (y·max(log x, -100) + (1 - y)·max(log(1 - x), -100))     (per element)
//   backward: dx = g · w · (x - y) / max((1 - x)·x, 1e-12)
//             dy = g · w · (log(1 - x) - log x)                 (PyTorch's -logit(x), not clamped)
//
// And of logits (the sigmoid folded in), with pos_weight p for the positive term:
//   forward:  loss = w · ((1 - y)·x + (1 + (p - 1)·y)·log(1 + e^-x))     (log(1 + e^-x) never overflows)
//   backward: dx = g · w · ((p·y + 1 - y)·σ(x) - p·y)                    (p = 1: σ(x) - y)
//             dy = g · w · (log σ(-x) - p·log σ(x))                       (p = 1: -x)
// PyTorch's formulas, written with σ: differentiating the forward's composition instead gives
// 0 · inf = NaN at x = -inf, where the gradient is 0.
#include <algorithm>
#include <cmath>
#include <string>

#include "kindling/autograd/function.hpp"
#include "kindling/tensor/autocast_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/train/losses.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"
#include "train/losses/loss_helpers.hpp"

namespace kindling::nn::functional {
namespace {

constexpr double kLogFloor = -100.0;  // PyTorch's clamp of each log term
constexpr double kGradEps = 1e-12;    // PyTorch's floor of x·(1 - x) in the gradient

// The per-element loss (reduction none); the caller reduces it with tensor ops. Inputs x, y and the
// weight w (already expanded to x's shape, or undefined) are contiguous and of one dtype.
struct BinaryCrossEntropy : autograd::Function<BinaryCrossEntropy> {
  static constexpr const char* name = "BinaryCrossEntropyBackward0";

  Tensor forward(autograd::Context& ctx, const Tensor& x, const Tensor& y, const autograd::NonDifferentiable& w) {
    ctx.save_for_backward({x, y, w.tensor});
    Tensor out = kindling::detail::make_tensor(x.shape(), x.dtype(), x.device());
    kindling::detail::dispatch_floating(x.dtype(), "binary_cross_entropy", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *xp = x.data_ptr<T>(), *yp = y.data_ptr<T>(), *wp = w.tensor.defined() ? w.tensor.data_ptr<T>() : nullptr;
      T* o = out.data_ptr<T>();
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        const T v = xp[i];
        if (!(v >= T(0) && v <= T(1))) {  // also refuses nan
          throw ValueError("binary_cross_entropy: all elements of input should be between 0 and 1, got " +
                           std::to_string(static_cast<double>(v)) + " at flat position " + std::to_string(i) +
                           ". Hint: pass probabilities (x.sigmoid()), or use BCEWithLogitsLoss on the logits.");
        }
        const T log_x = std::max(std::log(v), static_cast<T>(kLogFloor));
        const T log_1mx = std::max(std::log1p(-v), static_cast<T>(kLogFloor));
        const T l = -(yp[i] * log_x + (T(1) - yp[i]) * log_1mx);
        o[i] = wp ? wp[i] * l : l;
      }
    });
    return out;
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor x = ctx.saved(0), y = ctx.saved(1), w = ctx.saved(2);
    if (kindling::detail::grad_mode_enabled()) {
      // create_graph: the formulas above written with recorded ops, so that they can be
      // differentiated again (w.r.t. x, y and the incoming gradient); the kernel below otherwise.
      const Tensor scale = w.defined() ? grads[0] * w : grads[0];
      Tensor dx, dy;
      if (ctx.needs_input_grad(0)) dx = scale * (x - y) / ((1.0 - x) * x).clamp(kGradEps);
      if (ctx.needs_input_grad(1)) dy = scale * ((-x).log1p() - x.log());
      return {dx, dy};
    }
    const Tensor g = kindling::detail::contiguous_copy(grads[0].to(x.dtype()));
    const bool want_x = ctx.needs_input_grad(0), want_y = ctx.needs_input_grad(1);
    Tensor dx = want_x ? kindling::detail::make_tensor(x.shape(), x.dtype(), x.device()) : Tensor();
    Tensor dy = want_y ? kindling::detail::make_tensor(x.shape(), x.dtype(), x.device()) : Tensor();
    kindling::detail::dispatch_floating(x.dtype(), "binary_cross_entropy", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *xp = x.data_ptr<T>(), *yp = y.data_ptr<T>(), *gp = g.data_ptr<T>();
      const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        const T scale = wp ? gp[i] * wp[i] : gp[i];
        if (want_x) {
          const T denom = std::max((T(1) - xp[i]) * xp[i], static_cast<T>(kGradEps));
          dx.data_ptr<T>()[i] = scale * (xp[i] - yp[i]) / denom;
        }
        if (want_y) dy.data_ptr<T>()[i] = scale * (std::log1p(-xp[i]) - std::log(xp[i]));
      }
    });
    return {dx, dy};
  }
};

// log σ(x) = min(x, 0) - log(1 + e^-|x|), without overflow for any x.
Tensor log_sigmoid(const Tensor& x) { return -(-x).relu() - (-x.abs()).exp().log1p(); }

// The per-element loss of logits x against targets y (same shape); w and p broadcast to x's shape.
struct BinaryCrossEntropyWithLogits : autograd::Function<BinaryCrossEntropyWithLogits> {
  static constexpr const char* name = "BinaryCrossEntropyWithLogitsBackward0";

  Tensor forward(autograd::Context& ctx, const Tensor& x, const Tensor& y, const autograd::NonDifferentiable& w,
                 const autograd::NonDifferentiable& p) {
    ctx.save_for_backward({x, y, w.tensor, p.tensor});
    // log(1 + exp(-x)) = m + log(exp(-m) + exp(-x - m)) with m = max(-x, 0): exp never overflows.
    const Tensor m = (-x).relu();
    const Tensor log1p_exp = ((-m).exp() + (-x - m).exp()).log() + m;
    Tensor loss = p.tensor.defined() ? (1 - y) * x + ((p.tensor - 1) * y + 1) * log1p_exp : (1 - y) * x + log1p_exp;
    return w.tensor.defined() ? loss * w.tensor : loss;
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor x = ctx.saved(0), y = ctx.saved(1), w = ctx.saved(2), p = ctx.saved(3);
    const Tensor g = w.defined() ? grads[0] * w : grads[0];
    Tensor dx, dy;
    if (ctx.needs_input_grad(0)) {
      if (p.defined()) {
        const Tensor py = p * y;
        dx = ((py + 1 - y) * x.sigmoid() - py) * g;
      } else {
        dx = (x.sigmoid() - y) * g;
      }
    }
    if (ctx.needs_input_grad(1)) dy = p.defined() ? (log_sigmoid(-x) - log_sigmoid(x) * p) * g : -x * g;
    return {dx, dy};
  }
};

}  // namespace

Tensor binary_cross_entropy(const Tensor& input_in, const Tensor& target_in, const BCELossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  if (input.shape() != target.shape()) {
    // PyTorch raises here too (a ValueError), unlike the other losses that warn and broadcast.
    throw ShapeError("binary_cross_entropy: using a target size " + shape_str(target.shape()) +
                     " that is different to the input size " + shape_str(input.shape()) +
                     " is refused. Please ensure they have the same size (a [batch, 1] output against a [batch] "
                     "target: use .squeeze(1)).");
  }
  loss_helpers::check_reduction(o.reduction, "binary_cross_entropy");
  if (!input.is_floating_point() || input.dtype() != target.dtype()) {
    throw DTypeError(std::string("binary_cross_entropy: input and target must be floating-point of one dtype, got "
                                 "input ") + dtype_name(input.dtype()) + " and target " + dtype_name(target.dtype()) +
                     ". Hint: targets are probabilities; convert them with target.to(input.dtype()).");
  }
  kindling::detail::check_cpu(input, "binary_cross_entropy");
  loss_helpers::check_broadcasts_to(input, o.weight, "weight", "binary_cross_entropy");
  loss_helpers::check_not_differentiable(o.weight, "weight", "binary_cross_entropy");
  Tensor w;
  if (o.weight.defined()) w = o.weight.detach().to(input.dtype()).expand(input.shape()).contiguous();
  // The kernels index x, y and w with one flat position: make all three row-major (contiguous()
  // returns a contiguous tensor itself, and is differentiable for the others).
  Tensor loss = BinaryCrossEntropy::apply(input.contiguous(), target.contiguous(), autograd::NonDifferentiable{w});
  return loss_helpers::reduce(loss, o.reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input_in, const Tensor& target_in,
                                        const BCEWithLogitsLossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  const char* op = "binary_cross_entropy_with_logits";
  loss_helpers::check_same_shape(input, target, op);
  loss_helpers::check_reduction(o.reduction, op);
  // Targets are probabilities in [0, 1], so a floating tensor (PyTorch refuses int64 targets too:
  // the loss would otherwise silently promote class indices, which is rarely what was meant).
  if (!target.is_floating_point() || !input.is_floating_point()) {
    throw DTypeError(std::string(op) + ": input and target must be floating-point, got input " +
                     dtype_name(input.dtype()) + " and target " + dtype_name(target.dtype()) +
                     ". Hint: targets are probabilities; convert them with target.to(kd::kFloat32).");
  }
  loss_helpers::check_broadcasts_to(input, o.weight, "weight", op);
  loss_helpers::check_broadcasts_to(input, o.pos_weight, "pos_weight", op);
  loss_helpers::check_not_differentiable(o.weight, "weight", op);
  loss_helpers::check_not_differentiable(o.pos_weight, "pos_weight", op);
  const Tensor loss = BinaryCrossEntropyWithLogits::apply(input, target, autograd::NonDifferentiable{o.weight},
                                                          autograd::NonDifferentiable{o.pos_weight});
  return loss_helpers::reduce(loss, o.reduction);
}

}  // namespace kindling::nn::functional
