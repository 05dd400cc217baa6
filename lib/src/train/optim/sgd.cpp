// SGD: p -= lr * d, where d is the gradient, optionally with weight decay and (Nesterov) momentum.
// The update of one parameter is chapter 5's exercise 1 (train/pieces.hpp: detail::sgd_step); this file
// holds the parameter groups, the momentum buffers and the checkpoint state around it.
#include "kindling/optim/sgd.hpp"

#include "train/pieces.hpp"

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options) { add_param_group(std::move(params), options); }

void SGD::add_param_group(std::vector<Tensor> params, SGDOptions options) {
  if (options.lr < 0) throw ValueError("SGD: invalid learning rate " + std::to_string(options.lr));
  if (options.nesterov && (options.momentum <= 0 || options.dampening != 0)) {
    throw ValueError("SGD: Nesterov momentum requires a momentum > 0 and zero dampening.");
  }
  const std::size_t n = params.size();
  add_param_group_tensors(std::move(params), "SGD");
  options_.push_back(options);
  momentum_buffer_.emplace_back(n);
}

void SGD::step() {
  NoGradGuard no_grad;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    const SGDOptions& o = options_[gi];
    for (std::size_t i = 0; i < params_[gi].size(); ++i) {
      Tensor& p = params_[gi][i];
      Tensor g = p.grad();
      if (!g.defined()) continue;  // parameters without a gradient are skipped, like PyTorch
      g = g.to(p.dtype()).contiguous();
      Tensor& buf = momentum_buffer_[gi][i];
      const bool first = o.momentum != 0 && !buf.defined();
      if (first) buf = empty_like(p);
      detail::sgd_step(p, g, buf, o, first);  // chapter 5's exercise 1 (train/pieces.hpp)
      p.storage()->bump_version();
    }
  }
}

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
  std::size_t index = 0;
  for (std::size_t gi = 0; gi < params_.size(); ++gi) {
    auto& o = options_[gi];
    const std::string g = "group." + std::to_string(gi) + ".";
    o.lr = detail::read_scalar(s, g + "lr", "SGD");
    o.momentum = detail::read_scalar(s, g + "momentum", "SGD");
    o.dampening = detail::read_scalar(s, g + "dampening", "SGD");
    o.weight_decay = detail::read_scalar(s, g + "weight_decay", "SGD");
    o.nesterov = detail::read_scalar(s, g + "nesterov", "SGD") != 0;
    o.maximize = detail::read_scalar(s, g + "maximize", "SGD") != 0;
    for (std::size_t i = 0; i < params_[gi].size(); ++i, ++index) {
      momentum_buffer_[gi][i] = detail::read_buffer(s, "state." + std::to_string(index) + ".momentum_buffer",
                                                    params_[gi][i], "SGD");
    }
  }
}

}  // namespace kindling::optim
