// LR schedulers in PyTorch 1.13's chainable form: each step computes the new lr from the current one.
#include "kindling/optim/lr_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "kindling/tensor/checked.hpp"

namespace kindling::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (std::size_t g = 0; g < optimizer.num_param_groups(); ++g) base_lrs_.push_back(optimizer.lr(g));
  last_lr_ = base_lrs_;
}

void LRScheduler::step() {
  ++last_epoch_;
  for (std::size_t g = 0; g < base_lrs_.size(); ++g) {
    const double lr = next_lr(g, optimizer_.lr(g));
    optimizer_.set_lr(lr, g);
    last_lr_[g] = lr;
  }
}

std::map<std::string, double> LRScheduler::state_dict() const {
  std::map<std::string, double> s{{"last_epoch", static_cast<double>(last_epoch_)}};
  for (std::size_t g = 0; g < base_lrs_.size(); ++g) {
    s["base_lr." + std::to_string(g)] = base_lrs_[g];
    s["last_lr." + std::to_string(g)] = last_lr_[g];
  }
  return s;
}

void LRScheduler::load_state_dict(const std::map<std::string, double>& s) {
  auto get = [&](const std::string& k) {
    auto it = s.find(k);
    if (it == s.end()) throw ValueError("LRScheduler.load_state_dict: missing \"" + k + "\"");
    return it->second;
  };
  // The state may come from a file: counters must be whole numbers, learning rates finite.
  last_epoch_ = checked::to_int64(get("last_epoch"), "LRScheduler.load_state_dict: \"last_epoch\"", -1);
  for (std::size_t g = 0; g < base_lrs_.size(); ++g) {
    base_lrs_[g] = checked::finite(get("base_lr." + std::to_string(g)), "LRScheduler.load_state_dict: \"base_lr\"");
    last_lr_[g] = checked::finite(get("last_lr." + std::to_string(g)), "LRScheduler.load_state_dict: \"last_lr\"");
  }
}

StepLR::StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  if (step_size <= 0) throw ValueError("StepLR: step_size must be positive, got " + std::to_string(step_size));
}
double StepLR::next_lr(std::size_t, double lr) const {
  return last_epoch_ % step_size_ == 0 ? lr * gamma_ : lr;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<std::int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {}
double MultiStepLR::next_lr(std::size_t, double lr) const {
  // A milestone listed twice decays twice, as in PyTorch (it counts them).
  const auto hits = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  return lr * std::pow(gamma_, static_cast<double>(hits));
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer), gamma_(gamma) {}
double ExponentialLR::next_lr(std::size_t, double lr) const { return lr * gamma_; }

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  if (T_max <= 0) throw ValueError("CosineAnnealingLR: T_max must be positive, got " + std::to_string(T_max));
}
double CosineAnnealingLR::next_lr(std::size_t g, double lr) const {
  const double pi = std::numbers::pi, e = static_cast<double>(last_epoch_), T = static_cast<double>(T_max_);
  if ((last_epoch_ - 1 - T_max_) % (2 * T_max_) == 0) {  // restarting the upward half of the cycle
    return lr + (base_lrs_[g] - eta_min_) * (1 - std::cos(pi / T)) / 2;
  }
  return (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T)) * (lr - eta_min_) + eta_min_;
}

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options)
    : optimizer_(optimizer), o_(options) {
  if (o_.factor >= 1.0) throw ValueError("ReduceLROnPlateau: factor should be < 1.0, got " + std::to_string(o_.factor));
  best_ = o_.mode == ReduceLROnPlateauOptions::Mode::Min ? std::numeric_limits<double>::infinity()
                                                          : -std::numeric_limits<double>::infinity();
  for (std::size_t g = 0; g < optimizer.num_param_groups(); ++g) last_lr_.push_back(optimizer.lr(g));
}

// ReduceLROnPlateau::is_better and step are chapter 5's exercise 3 (train/pieces.hpp): in the answer file.

std::map<std::string, double> ReduceLROnPlateau::state_dict() const {
  return {{"best", best_},
          {"num_bad_epochs", static_cast<double>(num_bad_epochs_)},
          {"cooldown_counter", static_cast<double>(cooldown_counter_)},
          {"last_epoch", static_cast<double>(last_epoch_)}};
}

void ReduceLROnPlateau::load_state_dict(const std::map<std::string, double>& s) {
  auto get = [&](const char* k) {
    auto it = s.find(k);
    if (it == s.end()) throw ValueError(std::string("ReduceLROnPlateau.load_state_dict: missing \"") + k + "\"");
    return it->second;
  };
  best_ = get("best");  // +-inf before the first step is legitimate; NaN is not
  if (std::isnan(best_)) throw ValueError("ReduceLROnPlateau.load_state_dict: \"best\" is NaN (corrupt file?)");
  num_bad_epochs_ = checked::to_int64(get("num_bad_epochs"), "ReduceLROnPlateau.load_state_dict: \"num_bad_epochs\"", 0);
  cooldown_counter_ = checked::to_int64(get("cooldown_counter"), "ReduceLROnPlateau.load_state_dict: \"cooldown_counter\"", 0);
  last_epoch_ = checked::to_int64(get("last_epoch"), "ReduceLROnPlateau.load_state_dict: \"last_epoch\"", -1);
}

}  // namespace kindling::optim
