// Adagrad: p -= lr_t · g / (sqrt(s) + eps) with s the sum of every g² so far (torch.optim.Adagrad, in
// the same order of floating-point operations).
#include "kindling/optim/adagrad.hpp"

#include <cmath>
#include <limits>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/autocast_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/internal.hpp"
#include "train/optim/state_archive.hpp"

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
      // The update reads p through host pointers: a device parameter is refused.
      kindling::detail::check_cpu(p, "Adagrad.step");
      ParamState& s = state_[gi][i];
      ++s.step;
      kindling::detail::dispatch_floating(p.dtype(), "Adagrad.step", [&](auto tag) {
        using T = typename decltype(tag)::type;
        adagrad_update<T>(p.data_ptr<T>(), g.data_ptr<T>(), s.sum.data_ptr<T>(), p.numel(), o, s.step);
      });
      p.storage()->bump_version();
      // Chapter 6: autocast's bfloat16 copy of p (if any) is refreshed now, not cast again
      // at the next forward.
      kindling::detail::refresh_autocast_copy(p);
    }
  }
}

// The state of a group and of one parameter, as torch.optim.Adagrad's state_dict names them.
namespace {
template <class Archive> void adagrad_group(Archive& ar, AdagradOptions& o) {
  ar.scalar("lr", o.lr);
  ar.scalar("lr_decay", o.lr_decay);
  ar.scalar("weight_decay", o.weight_decay);
  ar.scalar("initial_accumulator_value", o.initial_accumulator_value);
  ar.scalar("eps", o.eps);
  ar.flag("maximize", o.maximize);
}
}  // namespace

template <class Archive>
void Adagrad::describe_param(Archive& ar, ParamState& s, const Tensor& p, const AdagradOptions&) {
  // Adagrad's state exists from the constructor on, so every parameter must have its sum.
  ar.required_buffer("sum", s.sum, p);
  ar.count("step", s.step);
}

OptimizerState Adagrad::state_dict() const {
  return detail::save_state(params_, options_, state_, [](auto& ar, AdagradOptions& o) { adagrad_group(ar, o); },
                            [](auto& ar, ParamState& s, const Tensor& p, const AdagradOptions& o) {
                              describe_param(ar, s, p, o);
                            },
                            "Adagrad");
}

void Adagrad::load_state_dict(const OptimizerState& in) {
  detail::load_state(
      in, params_, options_, state_, [](auto& ar, AdagradOptions& o) { adagrad_group(ar, o); },
      [](auto& ar, ParamState& s, const Tensor& p, const AdagradOptions& o) { describe_param(ar, s, p, o); },
      [](const AdagradOptions& o) { validate(o); }, "Adagrad");
}

}  // namespace kindling::optim
