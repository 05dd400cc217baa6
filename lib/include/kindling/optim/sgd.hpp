#pragma once
/// @file
/// Stochastic gradient descent with momentum, dampening, Nesterov and L2 weight decay
/// (torch.optim.SGD's exact update rule).
#include "kindling/optim/optimizer.hpp"

namespace kindling::optim {

struct SGDOptions {
  double lr = 1e-2;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
};

/// `kd::optim::SGD optimizer(model.parameters(), {.lr = 0.1, .momentum = 0.9});`
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  /// Adds another group with its own options (e.g. a different lr).
  void add_param_group(std::vector<Tensor> params, SGDOptions options);
  void step() override;
  double lr(std::size_t group = 0) const override { return options_.at(group).lr; }
  void set_lr(double lr, std::size_t group) override { options_.at(group).lr = lr; }
  using Optimizer::set_lr;
  SGDOptions& options(std::size_t group = 0) { return options_.at(group); }
  OptimizerState state_dict() const override;
  void load_state_dict(const OptimizerState& state) override;

 private:
  std::vector<SGDOptions> options_;
  std::vector<std::vector<Tensor>> momentum_buffer_;  // per group, per param (undefined until first step)
};

}  // namespace kindling::optim
