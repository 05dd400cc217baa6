#pragma once
/// @file
/// RMSprop (torch.optim.RMSprop's exact update): divides each step by a running root-mean-square of
/// the gradient, optionally centred (minus the running mean of the gradient) and with momentum.
#include "kindling/optim/optimizer.hpp"

namespace kindling::optim {

struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;  // smoothing of the running average of g²
  double eps = 1e-8;    // added to the root mean square before dividing
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;  // divide by the gradient's estimated standard deviation instead
  bool maximize = false;
};

/// `kd::optim::RMSprop optimizer(model.parameters(), {.lr = 1e-3, .momentum = 0.9});`
///
/// Update: g += wd·p;  v = α·v + (1 - α)·g²;  (centred: m = α·m + (1 - α)·g, v̂ = v - m²)
/// d = g / (sqrt(v̂) + eps);  with momentum: b = μ·b + d, p -= lr·b;  else p -= lr·d
class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<Tensor> params, RMSpropOptions options = {});
  void add_param_group(std::vector<Tensor> params, RMSpropOptions options);
  void step() override;
  double lr(std::size_t group = 0) const override { return options_.at(group).lr; }
  void set_lr(double lr, std::size_t group) override { options_.at(group).lr = lr; }
  using Optimizer::set_lr;
  RMSpropOptions& options(std::size_t group = 0) { return options_.at(group); }
  OptimizerState state_dict() const override;
  void load_state_dict(const OptimizerState& state) override;

 private:
  struct ParamState {
    std::int64_t step = 0;
    Tensor square_avg, momentum_buffer, grad_avg;  // v, b (momentum > 0), m (centered)
  };
  /// One parameter's state, for state_dict() and load_state_dict() alike (train/optim/state_archive.hpp).
  template <class Archive>
  static void describe_param(Archive& ar, ParamState& s, const Tensor& p, const RMSpropOptions& o);
  std::vector<RMSpropOptions> options_;
  std::vector<std::vector<ParamState>> state_;
};

}  // namespace kindling::optim
