// SGD: p -= lr * d, where d is the gradient, optionally with weight decay and (Nesterov) momentum.
// The update of one parameter is chapter 5's exercise 1 (train/pieces.hpp: detail::sgd_step); this file
// holds the parameter groups, the momentum buffers and the checkpoint state around it.
#include "kindling/optim/sgd.hpp"

#include <limits>

#include "train/pieces.hpp"

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options) { add_param_group(std::move(params), options); }

namespace {
// The same checks for options given in code and options read back from a state dict (NaN fails both).
void validate(const SGDOptions& o) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  detail::check_hyper("SGD", "learning rate", o.lr, 0, inf, true);
  detail::check_hyper("SGD", "momentum", o.momentum, 0, inf, true);
  detail::check_hyper("SGD", "dampening", o.dampening, -inf, inf, true);
  detail::check_hyper("SGD", "weight_decay", o.weight_decay, 0, inf, true);
  if (o.nesterov && (o.momentum <= 0 || o.dampening != 0)) {
    throw ValueError("SGD: Nesterov momentum requires a momentum > 0 and zero dampening.");
  }
}
}  // namespace

void SGD::add_param_group(std::vector<Tensor> params, SGDOptions options) {
  validate(options);
  const std::size_t n = params.size();
  add_param_group_tensors(std::move(params), "SGD");
  options_.push_back(options);
  momentum_buffer_.emplace_back(n);
}

// [snippet: sgd-step]
void SGD::step() {
  NoGradGuard no_grad;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const SGDOptions& o = options_[gi];
    for (std::size_t i = 0; i < params_[gi].size(); ++i) {
      Tensor& p = params_[gi][i];
      Tensor g = p.grad();
      // Parameters without a gradient are skipped, like PyTorch.
      if (!g.defined()) continue;
      g = g.to(p.dtype()).contiguous();
      Tensor& buf = momentum_buffer_[gi][i];
      const bool first = o.momentum != 0 && !buf.defined();
      if (first) buf = empty_like(p);
      // Chapter 5's exercise 1 (train/pieces.hpp).
      detail::sgd_step(p, g, buf, o, first);
      p.storage()->bump_version();
    }
  }
}
// [end]

OptimizerState SGD::state_dict() const {
  OptimizerState s;
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const auto& o = options_[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    s[g + "lr"] = detail::scalar_state(o.lr);
    s[g + "momentum"] = detail::scalar_state(o.momentum);
    s[g + "dampening"] = detail::scalar_state(o.dampening);
    s[g + "weight_decay"] = detail::scalar_state(o.weight_decay);
    s[g + "nesterov"] = detail::scalar_state(o.nesterov);
    s[g + "maximize"] = detail::scalar_state(o.maximize);
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      if (momentum_buffer_[gi][i].defined())
        s["state." + std::to_string(index) + ".momentum_buffer"] = momentum_buffer_[gi][i].clone();
    }
  }
  return s;
}

void SGD::load_state_dict(const OptimizerState& s) {
  // Read and check into copies first: a bad entry leaves the optimizer as it was.
  std::vector<SGDOptions> options = options_;
  std::vector<std::vector<Tensor>> buffers = momentum_buffer_;
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    auto& o = options[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    o.lr = detail::read_scalar(s, g + "lr", "SGD");
    o.momentum = detail::read_scalar(s, g + "momentum", "SGD");
    o.dampening = detail::read_scalar(s, g + "dampening", "SGD");
    o.weight_decay = detail::read_scalar(s, g + "weight_decay", "SGD");
    o.nesterov = detail::read_scalar(s, g + "nesterov", "SGD") != 0;
    o.maximize = detail::read_scalar(s, g + "maximize", "SGD") != 0;
    validate(o);
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      buffers[gi][i] = detail::read_buffer(s, "state." + std::to_string(index) + ".momentum_buffer",
                                           params_[gi][i], "SGD");
    }
  }
  options_ = std::move(options);
  momentum_buffer_ = std::move(buffers);
}

}  // namespace kindling::optim
