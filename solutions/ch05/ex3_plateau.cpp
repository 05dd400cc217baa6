// ch05.ex3 — ReduceLROnPlateau: cut the learning rate when the watched metric stops improving.
//
// The member functions ReduceLROnPlateau::is_better and step (kindling/optim/lr_scheduler.hpp), with
// PyTorch 1.13's rules: patience, threshold (rel/abs), cooldown, min_lr and eps. The constructor, the
// state (best_, num_bad_epochs_, cooldown_counter_, last_epoch_, last_lr_) and state_dict are the
// library's (lib/src/train/optim/lr_scheduler.cpp).
#include "kindling/optim/lr_scheduler.hpp"

#include <algorithm>

namespace kindling::optim {

bool ReduceLROnPlateau::is_better(double a, double best) const {
  // BEGIN SOLUTION ex3: is a better than best, by the mode and the threshold?
  using M = ReduceLROnPlateauOptions::Mode;
  using T = ReduceLROnPlateauOptions::ThresholdMode;
  if (o_.mode == M::Min && o_.threshold_mode == T::Rel) return a < best * (1 - o_.threshold);
  if (o_.mode == M::Min) return a < best - o_.threshold;
  if (o_.threshold_mode == T::Rel) return a > best * (o_.threshold + 1);
  return a > best + o_.threshold;
  // END SOLUTION
}

void ReduceLROnPlateau::step(double metric) {
  // BEGIN SOLUTION ex3: count bad epochs, respect the cooldown, cut every group's lr after patience
  ++last_epoch_;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;  // bad epochs during cooldown are ignored
  }
  if (num_bad_epochs_ > o_.patience) {
    for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g) {
      const double old_lr = optimizer_.lr(g);
      const double new_lr = std::max(old_lr * o_.factor, o_.min_lr);
      if (old_lr - new_lr > o_.eps) optimizer_.set_lr(new_lr, g);
    }
    cooldown_counter_ = o_.cooldown;
    num_bad_epochs_ = 0;
  }
  for (std::size_t g = 0; g < optimizer_.num_param_groups(); ++g) last_lr_[g] = optimizer_.lr(g);
  // END SOLUTION
}

}  // namespace kindling::optim
