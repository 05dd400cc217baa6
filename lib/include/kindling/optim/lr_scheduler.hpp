#pragma once
/// @file
/// Learning-rate schedulers (torch.optim.lr_scheduler). Call `scheduler.step()` once per epoch,
/// after `optimizer.step()`; ReduceLROnPlateau takes the validation loss: `scheduler.step(val_loss)`.
/// The update rules are PyTorch 1.13's "chainable" forms, so the LR sequences match to the last bit.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kindling/optim/optimizer.hpp"

namespace kindling::optim {

/// Base of the epoch-driven schedulers: holds the optimizer, the initial lrs and the epoch counter.
class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  /// Advances one epoch and writes the new lr into every parameter group.
  void step();
  /// The lr of each group after the last step().
  std::vector<double> get_last_lr() const { return last_lr_; }
  std::int64_t last_epoch() const { return last_epoch_; }
  /// Epoch counter and lrs, for checkpoints.
  virtual std::map<std::string, double> state_dict() const;
  virtual void load_state_dict(const std::map<std::string, double>& state);

 protected:
  friend class SequentialLR;
  /// The new lr of group `g`, given its current lr (the chainable form PyTorch uses).
  virtual double next_lr(std::size_t g, double current_lr) const = 0;
  /// Called once per step(), after the epoch counter moved and before next_lr (a scheduler with its
  /// own counters advances them here).
  virtual void advance() {}
  /// The lr of group `g` at epoch 0, from the base lr (PyTorch's closed form at epoch 0): what a
  /// scheduler sets when it starts, or restarts inside a SequentialLR.
  virtual double start_lr(std::size_t g) const { return base_lrs_[g]; }
  /// Epoch 0: resets the counters and writes start_lr into every group. A scheduler that changes
  /// the lr when it is created (LinearLR, LambdaLR, OneCycleLR) calls it at the end of its constructor.
  virtual void restart();
  /// Writes `lr` into group `g` of the optimizer and into get_last_lr().
  void write_lr(std::size_t g, double lr);
  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  std::int64_t last_epoch_ = 0;
};

/// lr × gamma every `step_size` epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma = 0.1);

 protected:
  double next_lr(std::size_t g, double lr) const override;

 private:
  std::int64_t step_size_;
  double gamma_;
};

/// lr × gamma at each epoch listed in `milestones`.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<std::int64_t> milestones, double gamma = 0.1);

 protected:
  double next_lr(std::size_t g, double lr) const override;
  double start_lr(std::size_t g) const override;

 private:
  std::vector<std::int64_t> milestones_;
  double gamma_;
};

/// lr × gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  double next_lr(std::size_t g, double lr) const override;

 private:
  double gamma_;
};

/// Half a cosine from the initial lr down to eta_min over T_max epochs (then back up, periodically).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min = 0);

 protected:
  double next_lr(std::size_t g, double lr) const override;

 private:
  std::int64_t T_max_;
  double eta_min_;
};

/// lr = base_lr · lr_lambda(epoch): `LambdaLR sched(opt, [](std::int64_t e) { return 0.95 ** e; });`
/// One function for every group, or one per group.
class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(std::int64_t)>;
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda);
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas);

 protected:
  double next_lr(std::size_t g, double lr) const override;
  double start_lr(std::size_t g) const override;

 private:
  std::vector<Lambda> lambdas_;
};

/// Scales the lr linearly from start_factor·lr to end_factor·lr over total_iters epochs, then
/// keeps it (a warm-up when start_factor < 1).
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, std::int64_t total_iters = 5);

 protected:
  double next_lr(std::size_t g, double lr) const override;
  double start_lr(std::size_t g) const override;

 private:
  double start_factor_, end_factor_;
  std::int64_t total_iters_;
};

/// Cosine annealing from the base lr to eta_min over T_i epochs, then a restart at the base lr;
/// the period starts at T_0 and is multiplied by T_mult after each restart (SGDR).
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, std::int64_t T_0, std::int64_t T_mult = 1, double eta_min = 0);
  std::map<std::string, double> state_dict() const override;
  void load_state_dict(const std::map<std::string, double>& state) override;

 protected:
  double next_lr(std::size_t g, double lr) const override;
  void advance() override;
  void restart() override;

 private:
  std::int64_t T_0_, T_mult_, T_i_, T_cur_ = 0;
  double eta_min_;
};

struct OneCycleLROptions {
  enum class Anneal { Cos, Linear };
  std::int64_t total_steps = 0;  // or give epochs and steps_per_epoch (total = their product)
  std::int64_t epochs = 0;
  std::int64_t steps_per_epoch = 0;
  double pct_start = 0.3;  // the fraction of the steps spent raising the lr
  Anneal anneal_strategy = Anneal::Cos;
  bool cycle_momentum = true;  // momentum (or Adam's beta1) moves opposite to the lr
  double base_momentum = 0.85;
  double max_momentum = 0.95;
  double div_factor = 25;          // initial lr = max_lr / div_factor
  double final_div_factor = 1e4;   // final lr = initial lr / final_div_factor
  bool three_phase = false;        // up, back down to the initial lr, then down to the final lr
};

/// The 1cycle policy, stepped once per *batch*: the lr rises from max_lr/div_factor to max_lr over
/// pct_start of total_steps, then anneals to far below the start; momentum does the opposite.
/// Stepping more than total_steps times is an error, as in PyTorch.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, double max_lr, OneCycleLROptions options);
  /// One max_lr per parameter group.
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, OneCycleLROptions options);
  std::int64_t total_steps() const { return total_steps_; }

 protected:
  double next_lr(std::size_t g, double lr) const override;
  double start_lr(std::size_t g) const override;

 private:
  struct Phase {
    double end_step;
    int start, end;  // 0: initial lr, 1: max lr, 2: min lr; momentum: 0 max, 1 base
    int start_m, end_m;
  };
  double compute(std::size_t g, std::int64_t step) const;
  double anneal(double start, double end, double pct) const;
  double* momentum_of(std::size_t g) const;
  OneCycleLROptions o_;
  std::int64_t total_steps_ = 0;
  std::vector<Phase> phases_;
  std::vector<double> max_lrs_, min_lrs_;
};

/// Runs `schedulers` one after the other: schedulers[i] takes over at epoch milestones[i - 1],
/// restarting from its own epoch 0. `SequentialLR seq(opt, {&warmup, &cosine}, {5});` -- the
/// schedulers must be built on `optimizer`, live as long as seq, and be stepped only through it.
class SequentialLR {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers, std::vector<std::int64_t> milestones);
  void step();
  std::vector<double> get_last_lr() const { return last_lr_; }
  std::int64_t last_epoch() const { return last_epoch_; }
  /// The epoch counter and every scheduler's state ("<i>.<key>").
  std::map<std::string, double> state_dict() const;
  void load_state_dict(const std::map<std::string, double>& state);

 private:
  Optimizer& optimizer_;
  std::vector<LRScheduler*> schedulers_;
  std::vector<std::int64_t> milestones_;
  std::int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

struct ReduceLROnPlateauOptions {
  enum class Mode { Min, Max };
  enum class ThresholdMode { Rel, Abs };
  Mode mode = Mode::Min;
  double factor = 0.1;
  std::int64_t patience = 10;
  double threshold = 1e-4;
  ThresholdMode threshold_mode = ThresholdMode::Rel;
  std::int64_t cooldown = 0;
  double min_lr = 0;
  double eps = 1e-8;
};

/// Cuts the lr by `factor` when the watched metric (validation loss) has not improved for
/// `patience` epochs: `ReduceLROnPlateau scheduler(opt, {.factor = 0.1, .patience = 5});`
class ReduceLROnPlateau {
 public:
  ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  /// Feeds this epoch's metric.
  void step(double metric);
  std::vector<double> get_last_lr() const { return last_lr_; }
  std::int64_t num_bad_epochs() const { return num_bad_epochs_; }
  double best() const { return best_; }
  std::map<std::string, double> state_dict() const;
  void load_state_dict(const std::map<std::string, double>& state);

 private:
  bool is_better(double a, double best) const;
  Optimizer& optimizer_;
  ReduceLROnPlateauOptions o_;
  double best_;
  std::int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace kindling::optim
