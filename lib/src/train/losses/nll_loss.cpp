// Negative log-likelihood: the loss of picking class t[i] with log-probability logp[i, t[i]].
// Forward and backward side by side; cross_entropy = nll_loss(log_softmax(x)), as in PyTorch, so the
// graph reads NllLossBackward0 -> LogSoftmaxBackward0 -> ... exactly like PyTorch's.
//
//   forward:  loss_i = -w[t_i] * logp[i, t_i]            (0 where t_i == ignore_index)
//             mean:   sum_i loss_i / sum_i w[t_i]        (the total weight of the counted rows)
//   backward: dlogp[i, t_i] = -w[t_i] * g_i  (/ total weight for mean), 0 elsewhere
#include <string>
#include <vector>

#include "kindling/autograd/function.hpp"
#include "kindling/tensor/autocast_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/train/losses.hpp"
#include "train/losses/loss_helpers.hpp"

namespace kindling::nn::functional {
namespace {

struct NllGeometry {
  std::int64_t batch, classes;
  bool batched;  // input [N, C] (else [C] with a 0-d target)
};

NllGeometry check_nll_args(const Tensor& input, const Tensor& target, const NLLLossOptions& o, const char* op) {
  if (!input.is_floating_point()) {
    throw DTypeError(std::string(op) + ": input must be floating-point log-probabilities, got " +
                     dtype_name(input.dtype()) + ".");
  }
  if (target.dtype() != kInt64 && target.numel() > 0) {  // an empty target holds no index: any dtype (PyTorch)
    throw DTypeError(std::string(op) + ": target must hold int64 class indices, got " + dtype_name(target.dtype()) +
                     ". Hint: labels from a DataLoader are int64; convert others with .to(kd::kInt64).");
  }
  NllGeometry g{};
  if (input.dim() == 2 && target.dim() == 1 && input.size(0) == target.size(0)) {
    g = {input.size(0), input.size(1), true};
  } else if (input.dim() == 1 && target.dim() == 0) {
    g = {1, input.size(0), false};
  } else {
    throw ShapeError(std::string(op) + ": expected input [batch, classes] with target [batch] (or [classes] with a "
                     "0-d target), got input " + shape_str(input.shape()) + " and target " +
                     shape_str(target.shape()) + ". Hint: the target holds one class index per row, not one-hot "
                     "vectors.");
  }
  if (o.weight.defined() && (o.weight.dim() != 1 || o.weight.size(0) != g.classes)) {
    throw ShapeError(std::string(op) + ": weight must have shape [" + std::to_string(g.classes) + "] (one per class), got " +
                     shape_str(o.weight.shape()) + ".");
  }
  if (o.weight.defined() && o.weight.dtype() != input.dtype()) {
    throw DTypeError(std::string(op) + ": expected scalar type " + dtype_name(input.dtype()) + " but found " +
                     dtype_name(o.weight.dtype()) + " for the class weight (as in PyTorch, it is not converted). "
                     "Hint: weight.to(input.dtype()).");
  }
  loss_helpers::check_not_differentiable(o.weight, "weight", op);
  return g;
}

// The forward (per-row weights, the reduction) happens in nll_loss() below; this Function records it
// and holds the backward. The target and the per-row weights are saved through ctx, so editing the
// target in place between forward and backward is refused (the gradient would be for other labels),
// and the saved class indices are range-checked before they are used to write.
struct NllLoss : autograd::Function<NllLoss> {
  static constexpr const char* name = "NllLossBackward0";
  Shape input_shape;
  DType dtype = kFloat32;
  double total_weight = 0;
  Reduction reduction = Reduction::Mean;
  NllGeometry geom{};
  std::int64_t ignore_index = -100;

  Tensor forward(autograd::Context& ctx, const Tensor& input, const autograd::NonDifferentiable& target,
                 const autograd::NonDifferentiable& row_weight, const autograd::NonDifferentiable& loss,
                 double total_weight_, Reduction reduction_, NllGeometry geom_, std::int64_t ignore_index_) {
    input_shape = input.shape();
    dtype = input.dtype();
    total_weight = total_weight_;
    reduction = reduction_;
    geom = geom_;
    ignore_index = ignore_index_;
    ctx.save_for_backward({target.tensor, row_weight.tensor});
    return loss.tensor;  // computed by nll_loss(): this Function only adds the backward
  }

  // create_graph (double backprop through a classifier's loss, ||d loss / d x||^2): the same
  // gradient written with a recorded scatter, so that it can be differentiated again. It is linear in
  // the incoming gradient and does not depend on the input, so its own derivative w.r.t. the input
  // is zero (PyTorch's NllLossBackwardBackward0 is the nll_loss of the gradient).
  autograd::Grads backward_with_graph(const Tensor& target, const Tensor& row_weight, const Tensor& grad) {
    const double scale = reduction == Reduction::Mean ? 1.0 / total_weight : 1.0;
    const Tensor ignored = target == ignore_index;                                        // [batch]
    const Tensor coeff = where(ignored, 0.0, row_weight * (-scale)).to(grad.dtype());    // [batch]
    const Tensor g = reduction == Reduction::None ? grad.reshape({geom.batch}) : grad.expand({geom.batch});
    const Tensor values = (g * coeff).reshape({geom.batch, 1});                           // [batch, 1]
    // An ignored row may hold ignore_index, out of range for the scatter: it writes its zero at class
    // 0 instead.
    const Tensor index = where(ignored, 0, target).reshape({geom.batch, 1});             // [batch, 1]
    const Tensor dx = zeros({geom.batch, geom.classes}, {.dtype = grad.dtype()}).scatter(1, index, values);
    return {dx.reshape(input_shape).to(dtype)};
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    // grads[0]: [] for mean/sum, [batch] for none.  Result: [batch, classes], nonzero only at targets.
    const Tensor target = ctx.saved(0), row_weight = ctx.saved(1);
    if (kindling::detail::grad_mode_enabled() && geom.batch > 0) {
      return backward_with_graph(target, row_weight, grads[0]);
    }
    Tensor g = grads[0].to(kFloat64).contiguous();
    // float16/bfloat16 gradients are written in float32 and rounded once at the end.
    const DType wide = dtype == kFloat64 ? kFloat64 : kFloat32;
    Tensor dx = zeros(input_shape, {.dtype = wide});
    const std::int64_t* t = target.data_ptr<std::int64_t>();
    const double* w = row_weight.data_ptr<double>();
    const double* gp = g.data_ptr<double>();
    const double scale = reduction == Reduction::Mean ? 1.0 / total_weight : 1.0;
    auto fill = [&](auto* out) {
      for (std::int64_t i = 0; i < geom.batch; ++i) {
        // Ignored rows get no gradient. A row of weight 0 gets -0 · g / total, which is NaN when the
        // total weight of a mean is 0 (its loss is 0/0 = NaN too): PyTorch's kernel, exactly.
        if (t[i] == ignore_index) continue;
        if (t[i] < 0 || t[i] >= geom.classes) {  // cannot happen unless the saved target was corrupted
          throw IndexError("NllLossBackward0: saved target " + std::to_string(t[i]) + " at position " +
                           std::to_string(i) + " is out of range for " + std::to_string(geom.classes) + " classes.");
        }
        const double gi = reduction == Reduction::None ? gp[i] : gp[0];
        out[i * geom.classes + t[i]] = static_cast<std::remove_pointer_t<decltype(out)>>(-w[i] * gi * scale);
      }
    };
    if (wide == kFloat32) fill(dx.data_ptr<float>());
    else fill(dx.data_ptr<double>());
    return {dtype == wide ? dx : dx.to(dtype)};
  }
};

// K dimensions (a class per pixel): input [N, C, d1, ..., dk], target [N, d1, ..., dk]. Moving the
// class dim last and flattening gives the 2-D case, [N·d1·…·dk, C] against [N·d1·…·dk]: the same
// sum, the same total weight for Mean, and the gradient flows back through the permute and reshape.
Tensor nll_loss_nd(const Tensor& input, const Tensor& target, const NLLLossOptions& o) {
  Shape expected{input.size(0)};
  for (std::int64_t d = 2; d < input.dim(); ++d) expected.push_back(input.size(d));
  if (target.shape() != expected) {
    throw ShapeError("nll_loss: expected target size " + shape_str(expected) + " for input " +
                     shape_str(input.shape()) + ", got " + shape_str(target.shape()) +
                     ". Hint: a [batch, classes, d1, ...] input takes one class index per position, "
                     "[batch, d1, ...].");
  }
  std::vector<std::int64_t> order{0};
  for (std::int64_t d = 2; d < input.dim(); ++d) order.push_back(d);
  order.push_back(1);
  Tensor rows = input.permute(order).reshape({-1, input.size(1)});
  Tensor loss = nll_loss(rows, target.reshape({-1}), o);
  return o.reduction == Reduction::None ? loss.view(target.shape()) : loss;
}

}  // namespace

Tensor nll_loss(const Tensor& input_in, const Tensor& target_in, const NLLLossOptions& o) {
  // Losses run in float32 under autocast (PyTorch's float32 list).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor target = kindling::detail::autocast_to_float32(target_in);
  loss_helpers::check_reduction(o.reduction, "nll_loss");
  if (input.dim() >= 3) return nll_loss_nd(input, target, o);
  const NllGeometry geom = check_nll_args(input, target, o, "nll_loss");
  // float16/bfloat16 log-probabilities are read widened to float32 (exactly); the loss is rounded once.
  Tensor x = input.dtype() == kFloat64 || input.dtype() == kFloat32 ? input.contiguous()
                                                                    : input.detach().to(kFloat32).contiguous();
  Tensor t = target.dtype() == kInt64 ? target.contiguous() : empty(target.shape(), {.dtype = kInt64});
  const std::int64_t* tp = t.data_ptr<std::int64_t>();
  Tensor class_w = o.weight.defined() ? o.weight.detach().to(kFloat64).contiguous() : Tensor();
  // Per-row weight w[t_i] (0 for ignored rows), checked targets, and the total weight.
  Tensor row_w = empty({geom.batch}, {.dtype = kFloat64});
  double* rw = row_w.data_ptr<double>();
  double total = 0;
  for (std::int64_t i = 0; i < geom.batch; ++i) {
    if (tp[i] == o.ignore_index) {
      rw[i] = 0;
      continue;
    }
    if (tp[i] < 0 || tp[i] >= geom.classes) {
      throw IndexError("nll_loss: target " + std::to_string(tp[i]) + " at position " + std::to_string(i) +
                       " is out of range for " + std::to_string(geom.classes) + " classes (valid: 0.." +
                       std::to_string(geom.classes - 1) + "). Hint: check the labels in your data, and that the "
                       "model's last layer has one output per class.");
    }
    rw[i] = class_w.defined() ? class_w.data_ptr<double>()[tp[i]] : 1.0;
    total += rw[i];
  }
  // Forward in double, then cast: [batch] per-row losses, reduced as asked.
  Tensor per_row = empty({geom.batch}, {.dtype = kFloat64});
  double* pr = per_row.data_ptr<double>();
  double sum = 0;
  auto gather = [&](const auto* xp) {
    for (std::int64_t i = 0; i < geom.batch; ++i) {
      pr[i] = rw[i] == 0 ? 0.0 : -rw[i] * static_cast<double>(xp[i * geom.classes + tp[i]]);
      sum += pr[i];
    }
  };
  if (x.dtype() == kFloat32) gather(x.data_ptr<float>());
  else gather(x.data_ptr<double>());
  Tensor out;
  if (o.reduction == Reduction::None) {
    out = per_row.to(input.dtype());
    if (!geom.batched) out = out.view({});
  } else {
    // Mean over zero counted rows is 0/0 = nan in PyTorch too.
    const double value = o.reduction == Reduction::Sum ? sum : sum / total;
    out = scalar_tensor(value, {.dtype = input.dtype()});
  }
  // `t` is the caller's target itself when it is contiguous: saved with its version, so an in-place
  // edit of it before backward is an error, as in PyTorch.
  return NllLoss::apply(input, autograd::NonDifferentiable{t}, autograd::NonDifferentiable{row_w},
                        autograd::NonDifferentiable{out}, total, o.reduction, geom, o.ignore_index);
}

}  // namespace kindling::nn::functional
