// Adam / AdamW: per-parameter running averages of the gradient (m) and its square (v), bias-corrected:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g²
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// The update of one parameter is chapter 5's exercise 2 (train/pieces.hpp: detail::adam_step); this file
// holds the groups, the lazily created state and the checkpoint state around it.
#include "kindling/optim/adam.hpp"

#include <cmath>
#include <limits>

#include "train/pieces.hpp"

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"

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
      // Chapter 5's exercise 2 (train/pieces.hpp).
      detail::adam_step(p, g, s.exp_avg, s.exp_avg_sq, s.max_exp_avg_sq, o, s.step,
                        decoupled_);
      p.storage()->bump_version();
    }
  }
}
// [end]

OptimizerState AdamBase::state_dict() const {
  OptimizerState out;
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const auto& o = options_[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    out[g + "lr"] = detail::scalar_state(o.lr);
    out[g + "beta1"] = detail::scalar_state(o.betas.first);
    out[g + "beta2"] = detail::scalar_state(o.betas.second);
    out[g + "eps"] = detail::scalar_state(o.eps);
    out[g + "weight_decay"] = detail::scalar_state(o.weight_decay);
    out[g + "amsgrad"] = detail::scalar_state(o.amsgrad);
    out[g + "maximize"] = detail::scalar_state(o.maximize);
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      const ParamState& s = state_[gi][i];
      if (!s.exp_avg.defined()) continue;
      const std::string k = "state." + std::to_string(index) + ".";
      out[k + "step"] = detail::scalar_state(static_cast<double>(s.step));
      out[k + "exp_avg"] = s.exp_avg.clone();
      out[k + "exp_avg_sq"] = s.exp_avg_sq.clone();
      if (s.max_exp_avg_sq.defined()) out[k + "max_exp_avg_sq"] = s.max_exp_avg_sq.clone();
    }
  }
  return out;
}

void AdamBase::load_state_dict(const OptimizerState& in) {
  // Everything is read and checked into copies first: a bad entry leaves the optimizer as it was.
  std::vector<AdamOptions> options = options_;
  std::vector<std::vector<ParamState>> state = state_;
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    auto& o = options[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    o.lr = detail::read_scalar(in, g + "lr", name_);
    o.betas = {detail::read_scalar(in, g + "beta1", name_), detail::read_scalar(in, g + "beta2", name_)};
    o.eps = detail::read_scalar(in, g + "eps", name_);
    o.weight_decay = detail::read_scalar(in, g + "weight_decay", name_);
    o.amsgrad = detail::read_scalar(in, g + "amsgrad", name_) != 0;
    o.maximize = detail::read_scalar(in, g + "maximize", name_) != 0;
    validate(o, name_);
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      const Tensor& p = params_[gi][i];
      const std::string k = "state." + std::to_string(index) + ".";
      ParamState s;
      s.exp_avg = detail::read_buffer(in, k + "exp_avg", p, name_);
      if (s.exp_avg.defined()) {
        s.step = detail::read_count(in, k + "step", name_);
        s.exp_avg_sq = detail::read_buffer(in, k + "exp_avg_sq", p, name_);
        if (!s.exp_avg_sq.defined()) throw ValueError(std::string(name_) + ".load_state_dict: missing " + k + "exp_avg_sq");
        s.max_exp_avg_sq = detail::read_buffer(in, k + "max_exp_avg_sq", p, name_);
        if (o.amsgrad && !s.max_exp_avg_sq.defined()) s.max_exp_avg_sq = zeros_like(p);
      }
      state[gi][i] = std::move(s);
    }
  }
  options_ = std::move(options);
  state_ = std::move(state);
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
