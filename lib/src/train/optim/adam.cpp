// Adam / AdamW: per-parameter running averages of the gradient (m) and its square (v), bias-corrected:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g²
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// The update of one parameter is chapter 5's exercise 2 (train/pieces.hpp: detail::adam_step); this file
// holds the groups, the lazily created state and the checkpoint state around it.
#include "kindling/optim/adam.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "tensor/device_ops.hpp"
#include "train/pieces.hpp"

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/autocast_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "train/optim/state_archive.hpp"

namespace kindling::optim {

namespace {
AdamOptions from_adamw(const AdamWOptions& o) {
  return {.lr = o.lr, .betas = o.betas, .eps = o.eps, .weight_decay = o.weight_decay, .amsgrad = o.amsgrad,
          .maximize = o.maximize};
}

}  // namespace

namespace {
// The same checks for options given in code and options read back from a state dict (NaN fails both).
void validate(const AdamOptions& o, const char* name) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  detail::check_hyper(name, "learning rate", o.lr, 0, inf, true);
  detail::check_hyper(name, "epsilon", o.eps, 0, inf, true);
  for (const auto& [i, beta] : {std::pair{0, o.betas.first}, std::pair{1, o.betas.second}}) {
    if (!(beta >= 0 && beta < 1)) {
      throw ValueError(std::string(name) + ": Invalid beta parameter at index " + std::to_string(i) + ": " +
                       std::to_string(beta) + " (betas must be in [0, 1), got (" + std::to_string(o.betas.first) +
                       ", " + std::to_string(o.betas.second) + ")). Hint: the defaults are (0.9, 0.999).");
    }
  }
  detail::check_hyper(name, "weight_decay", o.weight_decay, 0, inf, true);
}
}  // namespace

void AdamBase::add_group(std::vector<Tensor> params, const AdamOptions& o) {
  validate(o, name_);
  const std::size_t n = params.size();
  add_param_group_tensors(std::move(params), name_);
  options_.push_back(o);
  state_.emplace_back(n);
}

namespace {
[[noreturn]] void device_refused(const Tensor& p, bool decoupled) {
  throw DeviceError(std::string(decoupled ? "AdamW" : "Adam") + ".step: the parameter of shape " +
                    shape_str(p.shape()) + " is " + dtype_name(p.dtype()) + " on " + p.device().str() +
                    ", and only plain Adam (no amsgrad, maximize or decoupled weight decay) on float32 "
                    "has a " + p.device().str() + " kernel. Hint: use kd::optim::Adam, or train on the CPU.");
}
}  // namespace

// [snippet: adam-step]
void AdamBase::step() {
  NoGradGuard no_grad;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const AdamOptions& o = options_[gi];
    for (std::size_t i = 0; i < params_[gi].size(); ++i) {
      Tensor& p = params_[gi][i];
      Tensor g = p.grad();
      if (!g.defined()) continue;
      g = g.to(p.dtype()).contiguous();
      ParamState& s = state_[gi][i];
      // Lazily, like PyTorch: the state appears at the first step.
      if (!s.exp_avg.defined()) {
        s.exp_avg = zeros_like(p);
        s.exp_avg_sq = zeros_like(p);
        if (o.amsgrad) s.max_exp_avg_sq = zeros_like(p);
      }
      ++s.step;
      // On a device: the fused Adam kernel (chapter 8, tensor/device_ops.hpp), for
      // plain Adam on float32; AdamW, amsgrad and maximize there are refused below.
      const auto* dev = kindling::detail::device_ops(p);
      if (dev && dev->adam_step && !decoupled_ && !o.amsgrad && !o.maximize &&
          p.dtype() == kFloat32) {
        dev->adam_step(p, g, s.exp_avg, s.exp_avg_sq, o.lr, o.betas.first,
                       o.betas.second, o.eps, o.weight_decay, s.step);
        p.storage()->bump_version();
        continue;
      }
      // The CPU update below reads host pointers: never hand it device memory.
      if (!p.device().is_cpu() || !g.device().is_cpu()) device_refused(p, decoupled_);
      // Chapter 5's exercise 2 (train/pieces.hpp). Chapter 6: when autocast keeps a
      // bfloat16 copy of p, the update runs chunk by chunk and each chunk is cast
      // into the copy while it is in cache, not cast again at the next forward.
      auto update = [&](std::int64_t b, std::int64_t e) {
        using kindling::detail::flat_range;
        detail::adam_step(flat_range(p, b, e), flat_range(g, b, e),
                          flat_range(s.exp_avg, b, e), flat_range(s.exp_avg_sq, b, e),
                          flat_range(s.max_exp_avg_sq, b, e), o, s.step, decoupled_);
      };
      if (!kindling::detail::update_refreshing_autocast_copy(p, update)) {
        detail::adam_step(p, g, s.exp_avg, s.exp_avg_sq, s.max_exp_avg_sq, o, s.step,
                          decoupled_);
        p.storage()->bump_version();
      }
    }
  }
}
// [end]

// The state of a group and of one parameter, as torch.optim.Adam's state_dict names them.
namespace {
template <class Archive> void adam_group(Archive& ar, AdamOptions& o) {
  ar.scalar("lr", o.lr);
  ar.scalar("beta1", o.betas.first);
  ar.scalar("beta2", o.betas.second);
  ar.scalar("eps", o.eps);
  ar.scalar("weight_decay", o.weight_decay);
  ar.flag("amsgrad", o.amsgrad);
  ar.flag("maximize", o.maximize);
}
}  // namespace

template <class Archive>
void AdamBase::describe_param(Archive& ar, ParamState& s, const Tensor& p, const AdamOptions& o) {
  if (!ar.buffer("exp_avg", s.exp_avg, p)) return;  // no state before the first step
  ar.count("step", s.step);
  ar.required_buffer("exp_avg_sq", s.exp_avg_sq, p);
  ar.buffer("max_exp_avg_sq", s.max_exp_avg_sq, p);
  // amsgrad switched on after the state was saved: its running maximum starts at zero.
  if (Archive::reading && o.amsgrad && !s.max_exp_avg_sq.defined()) s.max_exp_avg_sq = zeros_like(p);
}

OptimizerState AdamBase::state_dict() const {
  return detail::save_state(params_, options_, state_, [](auto& ar, AdamOptions& o) { adam_group(ar, o); },
                            [](auto& ar, ParamState& s, const Tensor& p, const AdamOptions& o) {
                              describe_param(ar, s, p, o);
                            },
                            name_);
}

void AdamBase::load_state_dict(const OptimizerState& in) {
  detail::load_state(
      in, params_, options_, state_, [](auto& ar, AdamOptions& o) { adam_group(ar, o); },
      [](auto& ar, ParamState& s, const Tensor& p, const AdamOptions& o) { describe_param(ar, s, p, o); },
      [this](const AdamOptions& o) { validate(o, name_); }, name_);
}

Adam::Adam(std::vector<Tensor> params, AdamOptions options) : AdamBase(false, "Adam") {
  add_group(std::move(params), options);
}
void Adam::add_param_group(std::vector<Tensor> params, AdamOptions options) { add_group(std::move(params), options); }

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions options) : AdamBase(true, "AdamW") {
  add_group(std::move(params), from_adamw(options));
}
void AdamW::add_param_group(std::vector<Tensor> params, AdamWOptions options) {
  add_group(std::move(params), from_adamw(options));
}

}  // namespace kindling::optim
