// Adagrad: p -= lr_t · g / (sqrt(s) + eps) with s the sum of every g² so far (torch.optim.Adagrad, in
// the same order of floating-point operations).
#include "kindling/optim/adagrad.hpp"

#include <cmath>
#include <limits>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "tensor/dispatch.hpp"

namespace kindling::optim {

namespace {
// The same checks for options given in code and options read back from a state dict (NaN fails both):
// torch.optim.Adagrad's, with its words.
void validate(const AdagradOptions& o) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  detail::check_hyper("Adagrad", "learning rate", o.lr, 0, inf, true);
  detail::check_hyper("Adagrad", "lr_decay", o.lr_decay, 0, inf, true);
  detail::check_hyper("Adagrad", "weight_decay", o.weight_decay, 0, inf, true);
  detail::check_hyper("Adagrad", "initial_accumulator_value", o.initial_accumulator_value, 0, inf, true);
  detail::check_hyper("Adagrad", "epsilon", o.eps, 0, inf, true);
}

template <class T>
void adagrad_update(T* p, const T* g, T* sum, std::int64_t n, const AdagradOptions& o, std::int64_t step) {
  // The learning rate of step t decays as lr / (1 + (t - 1)·lr_decay), computed once in double.
  const T neg_clr = static_cast<T>(-(o.lr / (1 + static_cast<double>(step - 1) * o.lr_decay)));
  const T eps = static_cast<T>(o.eps), wd = static_cast<T>(o.weight_decay);
  const T sign = o.maximize ? T(-1) : T(1);
  for (std::int64_t i = 0; i < n; ++i) {
    T grad = sign * g[i];
    if (o.weight_decay != 0) grad = grad + wd * p[i];
    sum[i] = sum[i] + grad * grad;
    const T std_dev = std::sqrt(sum[i]) + eps;
    p[i] = p[i] + neg_clr * (grad / std_dev);
  }
}
}  // namespace

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions options) { add_param_group(std::move(params), options); }

void Adagrad::add_param_group(std::vector<Tensor> params, AdagradOptions options) {
  validate(options);
  std::vector<ParamState> states;
  for (const Tensor& p : params) {
    ParamState s;
    if (p.defined() && p.is_floating_point()) s.sum = full_like(p, options.initial_accumulator_value);
    states.push_back(std::move(s));
  }
  add_param_group_tensors(std::move(params), "Adagrad");
  options_.push_back(options);
  state_.push_back(std::move(states));
}

void Adagrad::step() {
  NoGradGuard no_grad;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const AdagradOptions& o = options_[gi];
    for (std::size_t i = 0; i < params_[gi].size(); ++i) {
      Tensor& p = params_[gi][i];
      Tensor g = p.grad();
      if (!g.defined()) continue;  // parameters without a gradient are skipped, like PyTorch
      g = g.to(p.dtype()).contiguous();
      ParamState& s = state_[gi][i];
      ++s.step;
      kindling::detail::dispatch_floating(p.dtype(), "Adagrad.step", [&](auto tag) {
        using T = typename decltype(tag)::type;
        adagrad_update<T>(p.data_ptr<T>(), g.data_ptr<T>(), s.sum.data_ptr<T>(), p.numel(), o, s.step);
      });
      p.storage()->bump_version();
    }
  }
}

OptimizerState Adagrad::state_dict() const {
  OptimizerState out;
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const auto& o = options_[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    out[g + "lr"] = detail::scalar_state(o.lr);
    out[g + "lr_decay"] = detail::scalar_state(o.lr_decay);
    out[g + "weight_decay"] = detail::scalar_state(o.weight_decay);
    out[g + "initial_accumulator_value"] = detail::scalar_state(o.initial_accumulator_value);
    out[g + "eps"] = detail::scalar_state(o.eps);
    out[g + "maximize"] = detail::scalar_state(o.maximize);
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      const ParamState& s = state_[gi][i];
      const std::string k = "state." + std::to_string(index) + ".";
      out[k + "step"] = detail::scalar_state(static_cast<double>(s.step));
      out[k + "sum"] = s.sum.clone();
    }
  }
  return out;
}

void Adagrad::load_state_dict(const OptimizerState& in) {
  // Everything is read and checked into copies first: a bad entry leaves the optimizer as it was.
  std::vector<AdagradOptions> options = options_;
  std::vector<std::vector<ParamState>> state = state_;
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    auto& o = options[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    o.lr = detail::read_scalar(in, g + "lr", "Adagrad");
    o.lr_decay = detail::read_scalar(in, g + "lr_decay", "Adagrad");
    o.weight_decay = detail::read_scalar(in, g + "weight_decay", "Adagrad");
    o.initial_accumulator_value = detail::read_scalar(in, g + "initial_accumulator_value", "Adagrad");
    o.eps = detail::read_scalar(in, g + "eps", "Adagrad");
    o.maximize = detail::read_scalar(in, g + "maximize", "Adagrad") != 0;
    validate(o);
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      const Tensor& p = params_[gi][i];
      const std::string k = "state." + std::to_string(index) + ".";
      ParamState s;
      // Adagrad's state exists from the constructor on, so every parameter must have its sum.
      s.sum = detail::read_buffer(in, k + "sum", p, "Adagrad");
      if (!s.sum.defined()) throw ValueError("Adagrad.load_state_dict: missing \"" + k + "sum\".");
      s.step = detail::read_count(in, k + "step", "Adagrad");
      state[gi][i] = std::move(s);
    }
  }
  options_ = std::move(options);
  state_ = std::move(state);
}

}  // namespace kindling::optim
