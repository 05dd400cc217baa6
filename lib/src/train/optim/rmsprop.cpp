// RMSprop: p -= lr · g / (sqrt(v) + eps) with v a running average of g² (torch.optim.RMSprop, in the
// same order of floating-point operations, so float32 trajectories agree with PyTorch's closely).
#include "kindling/optim/rmsprop.hpp"

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
// torch.optim.RMSprop's, with its words.
void validate(const RMSpropOptions& o) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  detail::check_hyper("RMSprop", "learning rate", o.lr, 0, inf, true);
  detail::check_hyper("RMSprop", "epsilon", o.eps, 0, inf, true);
  detail::check_hyper("RMSprop", "momentum", o.momentum, 0, inf, true);
  detail::check_hyper("RMSprop", "weight_decay", o.weight_decay, 0, inf, true);
  detail::check_hyper("RMSprop", "alpha", o.alpha, 0, inf, true);
}

// One parameter's update; p, g and the buffers are contiguous, of one dtype T. `m` (centred) and `b`
// (momentum) are null when unused.
template <class T>
void rmsprop_update(T* p, const T* g, T* v, T* m, T* b, std::int64_t n, const RMSpropOptions& o) {
  const T alpha = static_cast<T>(o.alpha), one_minus_alpha = static_cast<T>(1 - o.alpha);
  const T eps = static_cast<T>(o.eps), wd = static_cast<T>(o.weight_decay), mu = static_cast<T>(o.momentum);
  const T neg_lr = static_cast<T>(-o.lr);
  const T sign = o.maximize ? T(-1) : T(1);  // negation is exact
  for (std::int64_t i = 0; i < n; ++i) {
    T grad = sign * g[i];
    if (o.weight_decay != 0) grad = grad + wd * p[i];  // L2 penalty folded into the gradient
    v[i] = v[i] * alpha + one_minus_alpha * grad * grad;
    T avg;
    if (m) {
      // Centred: v - m² estimates the variance of g, so steps are scaled by its standard deviation.
      m[i] = m[i] * alpha + one_minus_alpha * grad;
      avg = std::sqrt(v[i] + T(-1) * m[i] * m[i]);
    } else {
      avg = std::sqrt(v[i]);
    }
    avg = avg + eps;
    if (b) {
      b[i] = b[i] * mu + grad / avg;
      p[i] = p[i] + neg_lr * b[i];
    } else {
      p[i] = p[i] + neg_lr * (grad / avg);
    }
  }
}

template <class T> T* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr<T>() : nullptr; }
}  // namespace

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions options) { add_param_group(std::move(params), options); }

void RMSprop::add_param_group(std::vector<Tensor> params, RMSpropOptions options) {
  validate(options);
  const std::size_t n = params.size();
  add_param_group_tensors(std::move(params), "RMSprop");
  options_.push_back(options);
  state_.emplace_back(n);
}

void RMSprop::step() {
  NoGradGuard no_grad;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const RMSpropOptions& o = options_[gi];
    for (std::size_t i = 0; i < params_[gi].size(); ++i) {
      Tensor& p = params_[gi][i];
      Tensor g = p.grad();
      if (!g.defined()) continue;  // parameters without a gradient are skipped, like PyTorch
      g = g.to(p.dtype()).contiguous();
      // The update reads p through host pointers: a device parameter is refused.
      kindling::detail::check_cpu(p, "RMSprop.step");
      ParamState& s = state_[gi][i];
      // Lazily, like PyTorch: the state appears at the first step.
      if (!s.square_avg.defined()) s.square_avg = zeros_like(p);
      if (o.momentum > 0 && !s.momentum_buffer.defined()) s.momentum_buffer = zeros_like(p);
      if (o.centered && !s.grad_avg.defined()) s.grad_avg = zeros_like(p);
      ++s.step;
      kindling::detail::dispatch_floating(p.dtype(), "RMSprop.step", [&](auto tag) {
        using T = typename decltype(tag)::type;
        rmsprop_update<T>(p.data_ptr<T>(), g.data_ptr<T>(), s.square_avg.data_ptr<T>(),
                          o.centered ? s.grad_avg.data_ptr<T>() : nullptr,
                          o.momentum > 0 ? s.momentum_buffer.data_ptr<T>() : nullptr, p.numel(), o);
      });
      p.storage()->bump_version();
      // Chapter 6: autocast's bfloat16 copy of p (if any) is refreshed now, not cast again
      // at the next forward.
      kindling::detail::refresh_autocast_copy(p);
    }
  }
}

// The state of a group and of one parameter, as torch.optim.RMSprop's state_dict names them.
namespace {
template <class Archive> void rmsprop_group(Archive& ar, RMSpropOptions& o) {
  ar.scalar("lr", o.lr);
  ar.scalar("alpha", o.alpha);
  ar.scalar("eps", o.eps);
  ar.scalar("weight_decay", o.weight_decay);
  ar.scalar("momentum", o.momentum);
  ar.flag("centered", o.centered);
  ar.flag("maximize", o.maximize);
}
}  // namespace

template <class Archive>
void RMSprop::describe_param(Archive& ar, ParamState& s, const Tensor& p, const RMSpropOptions&) {
  if (!ar.buffer("square_avg", s.square_avg, p)) return;  // no state before the first step
  ar.count("step", s.step);
  // Missing buffers start at zero at the next step, as a fresh option would (PyTorch does the same
  // when momentum or centered is switched on later).
  ar.buffer("momentum_buffer", s.momentum_buffer, p);
  ar.buffer("grad_avg", s.grad_avg, p);
}

OptimizerState RMSprop::state_dict() const {
  return detail::save_state(params_, options_, state_, [](auto& ar, RMSpropOptions& o) { rmsprop_group(ar, o); },
                            [](auto& ar, ParamState& s, const Tensor& p, const RMSpropOptions& o) {
                              describe_param(ar, s, p, o);
                            },
                            "RMSprop");
}

void RMSprop::load_state_dict(const OptimizerState& in) {
  detail::load_state(
      in, params_, options_, state_, [](auto& ar, RMSpropOptions& o) { rmsprop_group(ar, o); },
      [](auto& ar, ParamState& s, const Tensor& p, const RMSpropOptions& o) { describe_param(ar, s, p, o); },
      [](const RMSpropOptions& o) { validate(o); }, "RMSprop");
}

}  // namespace kindling::optim
