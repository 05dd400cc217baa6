// RMSprop: p -= lr · g / (sqrt(v) + eps) with v a running average of g² (torch.optim.RMSprop, in the
// same order of floating-point operations, so float32 trajectories agree with PyTorch's closely).
#include "kindling/optim/rmsprop.hpp"

#include <cmath>
#include <limits>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "tensor/dispatch.hpp"

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
    }
  }
}

OptimizerState RMSprop::state_dict() const {
  OptimizerState out;
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const auto& o = options_[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    out[g + "lr"] = detail::scalar_state(o.lr);
    out[g + "alpha"] = detail::scalar_state(o.alpha);
    out[g + "eps"] = detail::scalar_state(o.eps);
    out[g + "weight_decay"] = detail::scalar_state(o.weight_decay);
    out[g + "momentum"] = detail::scalar_state(o.momentum);
    out[g + "centered"] = detail::scalar_state(o.centered);
    out[g + "maximize"] = detail::scalar_state(o.maximize);
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      const ParamState& s = state_[gi][i];
      if (!s.square_avg.defined()) continue;
      const std::string k = "state." + std::to_string(index) + ".";
      out[k + "step"] = detail::scalar_state(static_cast<double>(s.step));
      out[k + "square_avg"] = s.square_avg.clone();
      if (s.momentum_buffer.defined()) out[k + "momentum_buffer"] = s.momentum_buffer.clone();
      if (s.grad_avg.defined()) out[k + "grad_avg"] = s.grad_avg.clone();
    }
  }
  return out;
}

void RMSprop::load_state_dict(const OptimizerState& in) {
  // Everything is read and checked into copies first: a bad entry leaves the optimizer as it was.
  std::vector<RMSpropOptions> options = options_;
  std::vector<std::vector<ParamState>> state = state_;
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    auto& o = options[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    o.lr = detail::read_scalar(in, g + "lr", "RMSprop");
    o.alpha = detail::read_scalar(in, g + "alpha", "RMSprop");
    o.eps = detail::read_scalar(in, g + "eps", "RMSprop");
    o.weight_decay = detail::read_scalar(in, g + "weight_decay", "RMSprop");
    o.momentum = detail::read_scalar(in, g + "momentum", "RMSprop");
    o.centered = detail::read_scalar(in, g + "centered", "RMSprop") != 0;
    o.maximize = detail::read_scalar(in, g + "maximize", "RMSprop") != 0;
    validate(o);
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      const Tensor& p = params_[gi][i];
      const std::string k = "state." + std::to_string(index) + ".";
      ParamState s;
      s.square_avg = detail::read_buffer(in, k + "square_avg", p, "RMSprop");
      if (s.square_avg.defined()) {
        s.step = detail::read_count(in, k + "step", "RMSprop");
        // Missing buffers start at zero at the next step, as a fresh option would (PyTorch does the same
        // when momentum or centered is switched on later).
        s.momentum_buffer = detail::read_buffer(in, k + "momentum_buffer", p, "RMSprop");
        s.grad_avg = detail::read_buffer(in, k + "grad_avg", p, "RMSprop");
      }
      state[gi][i] = std::move(s);
    }
  }
  options_ = std::move(options);
  state_ = std::move(state);
}

}  // namespace kindling::optim
