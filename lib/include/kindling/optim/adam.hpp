#pragma once
/// @file
/// Adam and AdamW (torch.optim.Adam / AdamW, including amsgrad). The only difference is where weight
/// decay goes: Adam adds `wd * p` to the gradient (L2, which Adam's scaling then distorts), AdamW
/// shrinks the weights directly (`p *= 1 - lr * wd`, "decoupled" weight decay).
#include <utility>

#include "kindling/optim/optimizer.hpp"

namespace kindling::optim {

struct AdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;
};

/// AdamW's defaults differ from Adam's in weight_decay (0.01).
struct AdamWOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;
};

/// Shared implementation; `decoupled` selects AdamW's weight decay.
class AdamBase : public Optimizer {
 public:
  void step() override;
  double lr(std::size_t group = 0) const override { return options_.at(group).lr; }
  void set_lr(double lr, std::size_t group) override { options_.at(group).lr = lr; }
  using Optimizer::set_lr;
  OptimizerState state_dict() const override;
  void load_state_dict(const OptimizerState& state) override;

 protected:
  AdamBase(bool decoupled, const char* name) : decoupled_(decoupled), name_(name) {}
  void add_group(std::vector<Tensor> params, const AdamOptions& options);
  std::vector<AdamOptions> options_;

 private:
  struct ParamState {
    std::int64_t step = 0;
    Tensor exp_avg, exp_avg_sq, max_exp_avg_sq;  // m, v, and max(v) for amsgrad
  };
  /// One parameter's state, for state_dict() and load_state_dict() alike (train/optim/state_archive.hpp).
  template <class Archive>
  static void describe_param(Archive& ar, ParamState& s, const Tensor& p, const AdamOptions& o);
  bool decoupled_;
  const char* name_;
  std::vector<std::vector<ParamState>> state_;
};

/// `kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});`
class Adam : public AdamBase {
 public:
  Adam(std::vector<Tensor> params, AdamOptions options = {});
  void add_param_group(std::vector<Tensor> params, AdamOptions options);
  AdamOptions& options(std::size_t group = 0) { return options_.at(group); }
};

/// `kd::optim::AdamW optimizer(model.parameters(), {.lr = 1e-3, .weight_decay = 0.01});`
class AdamW : public AdamBase {
 public:
  AdamW(std::vector<Tensor> params, AdamWOptions options = {});
  void add_param_group(std::vector<Tensor> params, AdamWOptions options);
  AdamOptions& options(std::size_t group = 0) { return options_.at(group); }
};

}  // namespace kindling::optim
