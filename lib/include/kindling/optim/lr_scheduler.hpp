#pragma once
/// @file
/// Learning-rate schedulers (torch.optim.lr_scheduler). Call `scheduler.step()` once per epoch,
/// after `optimizer.step()`; ReduceLROnPlateau takes the validation loss: `scheduler.step(val_loss)`.
/// The update rules are PyTorch 1.13's "chainable" forms, so the LR sequences match to the last bit.
#include <cstdint>
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
  std::map<std::string, double> state_dict() const;
  void load_state_dict(const std::map<std::string, double>& state);

 protected:
  /// The new lr of group `g`, given its current lr (the chainable form PyTorch uses).
  virtual double next_lr(std::size_t g, double current_lr) const = 0;
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
