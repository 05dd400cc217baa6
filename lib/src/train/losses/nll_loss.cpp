// Negative log-likelihood: the loss of picking class t[i] with log-probability logp[i, t[i]].
// Forward and backward side by side; cross_entropy = nll_loss(log_softmax(x)), as in PyTorch, so the
// graph reads NllLossBackward0 -> LogSoftmaxBackward0 -> ... exactly like PyTorch's.
//
//   forward:  loss_i = -w[t_i] * logp[i, t_i]            (0 where t_i == ignore_index)
//             mean:   sum_i loss_i / sum_i w[t_i]        (the total weight of the counted rows)
//   backward: dlogp[i, t_i] = -w[t_i] * g_i  (/ total weight for mean), 0 elsewhere
#include <string>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/autograd/node.hpp"
#include "kindling/tensor/autograd_hooks.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::nn::functional {
namespace {

struct NllGeometry {
  std::int64_t batch, classes;
  bool batched;  // input [N, C] (else [C] with a 0-d target)
};

NllGeometry check_nll_args(const Tensor& input, const Tensor& target, const NLLLossOptions& o, const char* op) {
  if (!input.is_floating_point()) {
    throw DTypeError(std::string(op) + ": input must be float32/float64 log-probabilities, got " +
                     dtype_name(input.dtype()) + ".");
  }
  if (target.dtype() != kInt64) {
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
  return g;
}

class NllLossBackward0 final : public autograd::Node {
 public:
  NllLossBackward0(const Tensor& input, Tensor target, Tensor weights_per_row, double total_weight,
                   Reduction reduction, NllGeometry geom)
      : Node(1, {autograd::gradient_edge(input)}),
        input_shape_(input.shape()),
        dtype_(input.dtype()),
        target_(std::move(target)),
        row_weight_(std::move(weights_per_row)),
        total_weight_(total_weight),
        reduction_(reduction),
        geom_(geom) {}
  const char* name() const override { return "NllLossBackward0"; }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    // grads[0]: [] for mean/sum, [batch] for none.  Result: [batch, classes], nonzero only at targets.
    Tensor g = grads[0].to(kFloat64).contiguous();
    Tensor dx = zeros(input_shape_, {.dtype = dtype_});
    const std::int64_t* t = target_.data_ptr<std::int64_t>();
    const double* w = row_weight_.data_ptr<double>();
    const double* gp = g.data_ptr<double>();
    const double scale = reduction_ == Reduction::Mean ? 1.0 / total_weight_ : 1.0;
    auto fill = [&](auto* out) {
      for (std::int64_t i = 0; i < geom_.batch; ++i) {
        if (w[i] == 0) continue;
        const double gi = reduction_ == Reduction::None ? gp[i] : gp[0];
        out[i * geom_.classes + t[i]] = static_cast<std::remove_pointer_t<decltype(out)>>(-w[i] * gi * scale);
      }
    };
    if (dtype_ == kFloat32) fill(dx.data_ptr<float>());
    else fill(dx.data_ptr<double>());
    return {dx};
  }
  void release_saved() override {
    target_ = Tensor();
    row_weight_ = Tensor();
  }
  std::vector<Tensor> saved_tensors() const override { return {target_}; }

 private:
  Shape input_shape_;
  DType dtype_;
  Tensor target_, row_weight_;
  double total_weight_;
  Reduction reduction_;
  NllGeometry geom_;
};

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossOptions& o) {
  const NllGeometry geom = check_nll_args(input, target, o, "nll_loss");
  Tensor x = input.contiguous();
  Tensor t = target.contiguous();
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
  if (detail::needs_grad(input)) {
    auto node = std::make_shared<NllLossBackward0>(input, t, row_w, total, o.reduction, geom);
    out.impl()->requires_grad = true;
    out.impl()->grad_fn = std::move(node);
  }
  return out;
}

}  // namespace kindling::nn::functional
