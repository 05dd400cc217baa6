#pragma once
/// @file
/// Adagrad (torch.optim.Adagrad's exact update): each weight's step shrinks with the sum of all the
/// squared gradients it has seen, so often-updated weights slow down and rare ones keep moving.
#include "kindling/optim/optimizer.hpp"

namespace kindling::optim {

struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;  // the step's lr is lr / (1 + (t - 1)·lr_decay)
  double weight_decay = 0;
  double initial_accumulator_value = 0;  // the starting value of the sum of squares
  double eps = 1e-10;
  bool maximize = false;
};

/// `kd::optim::Adagrad optimizer(model.parameters(), {.lr = 0.1});`
///
/// Update: g += wd·p;  s += g²;  p -= lr / (1 + (t - 1)·lr_decay) · g / (sqrt(s) + eps)
///
/// As in PyTorch the sum `s` exists from the constructor on (filled with initial_accumulator_value),
/// not from the first step.
class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<Tensor> params, AdagradOptions options = {});
  void add_param_group(std::vector<Tensor> params, AdagradOptions options);
  void step() override;
  double lr(std::size_t group = 0) const override { return options_.at(group).lr; }
  void set_lr(double lr, std::size_t group) override { options_.at(group).lr = lr; }
  using Optimizer::set_lr;
  AdagradOptions& options(std::size_t group = 0) { return options_.at(group); }
  OptimizerState state_dict() const override;
  void load_state_dict(const OptimizerState& state) override;

 private:
  struct ParamState {
    std::int64_t step = 0;
    Tensor sum;  // the running sum of g², the parameter's shape
  };
  /// One parameter's state, for state_dict() and load_state_dict() alike (train/optim/state_archive.hpp).
  template <class Archive>
  static void describe_param(Archive& ar, ParamState& s, const Tensor& p, const AdagradOptions& o);
  std::vector<AdagradOptions> options_;
  std::vector<std::vector<ParamState>> state_;
};

}  // namespace kindling::optim
