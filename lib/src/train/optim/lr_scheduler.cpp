// LR schedulers in PyTorch 1.13's chainable form: each step computes the new lr from the current one.
#include "kindling/optim/lr_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "kindling/optim/adam.hpp"
#include "kindling/optim/rmsprop.hpp"
#include "kindling/optim/sgd.hpp"
#include "kindling/tensor/checked.hpp"

namespace kindling::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  // The first scheduler records each group's lr as its initial lr; later ones reuse it (PyTorch's
  // group.setdefault("initial_lr", group["lr"])).
  if (optimizer.initial_lr.size() != optimizer.num_param_groups()) {
    optimizer.initial_lr.clear();
    for (std::size_t g = 0; g < optimizer.num_param_groups(); ++g) optimizer.initial_lr.push_back(optimizer.lr(g));
  }
  base_lrs_ = optimizer.initial_lr;
  for (std::size_t g = 0; g < optimizer.num_param_groups(); ++g) last_lr_.push_back(optimizer.lr(g));
}

void LRScheduler::step() {
  ++last_epoch_;
  advance();
  for (std::size_t g = 0; g < base_lrs_.size(); ++g) write_lr(g, next_lr(g, optimizer_.lr(g)));
}

void LRScheduler::write_lr(std::size_t g, double lr) {
  optimizer_.set_lr(lr, g);
  last_lr_[g] = lr;
}

void LRScheduler::restart() {
  last_epoch_ = 0;
  for (std::size_t g = 0; g < base_lrs_.size(); ++g) write_lr(g, start_lr(g));
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
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  // PyTorch's constructor takes the step to epoch 0, so a milestone at 0 decays the lr at once.
  const auto at_zero = std::count(milestones_.begin(), milestones_.end(), std::int64_t{0});
  if (at_zero > 0)
    for (std::size_t g = 0; g < base_lrs_.size(); ++g)
      write_lr(g, optimizer.lr(g) * std::pow(gamma_, static_cast<double>(at_zero)));
}
double MultiStepLR::start_lr(std::size_t g) const {
  // The closed form at epoch 0 (a restart inside SequentialLR): every milestone at or before it.
  const auto passed = std::count_if(milestones_.begin(), milestones_.end(), [](std::int64_t m) { return m <= 0; });
  return base_lrs_[g] * std::pow(gamma_, static_cast<double>(passed));
}
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

// ---- LambdaLR ---------------------------------------------------------------------------------------
LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lr_lambda)
    : LambdaLR(optimizer, std::vector<Lambda>(optimizer.num_param_groups(), lr_lambda)) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas)
    : LRScheduler(optimizer), lambdas_(std::move(lr_lambdas)) {
  if (lambdas_.size() != base_lrs_.size()) {
    throw ValueError("LambdaLR: Expected " + std::to_string(base_lrs_.size()) + " lr_lambdas, but got " +
                     std::to_string(lambdas_.size()) + " (one per parameter group, or a single one for all).");
  }
  for (const auto& f : lambdas_)
    if (!f) throw ValueError("LambdaLR: an lr_lambda is empty. Hint: pass a function of the epoch.");
  restart();
}
double LambdaLR::next_lr(std::size_t g, double) const { return base_lrs_[g] * lambdas_[g](last_epoch_); }
double LambdaLR::start_lr(std::size_t g) const { return base_lrs_[g] * lambdas_[g](0); }

// ---- LinearLR ---------------------------------------------------------------------------------------
LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, std::int64_t total_iters)
    : LRScheduler(optimizer), start_factor_(start_factor), end_factor_(end_factor), total_iters_(total_iters) {
  if (!(start_factor > 0 && start_factor <= 1)) {
    throw ValueError("LinearLR: Starting multiplicative factor expected to be greater than 0 and less or equal to 1, "
                     "got " + std::to_string(start_factor) + ".");
  }
  if (!(end_factor >= 0 && end_factor <= 1)) {
    throw ValueError("LinearLR: Ending multiplicative factor expected to be between 0 and 1, got " +
                     std::to_string(end_factor) + ".");
  }
  if (total_iters < 0) {
    // PyTorch accepts it and keeps start_factor for ever, as for 0; a negative count is a mistake.
    throw ValueError("LinearLR: total_iters must be >= 0, got " + std::to_string(total_iters) + ".");
  }
  restart();
}
double LinearLR::next_lr(std::size_t, double lr) const {
  if (last_epoch_ > total_iters_) return lr;
  // PyTorch's chainable form: the ratio of this epoch's factor to the previous one's.
  const double d = end_factor_ - start_factor_;
  return lr * (1.0 + d / (static_cast<double>(total_iters_) * start_factor_ + static_cast<double>(last_epoch_ - 1) * d));
}
double LinearLR::start_lr(std::size_t g) const { return base_lrs_[g] * start_factor_; }

// ---- CosineAnnealingWarmRestarts ----------------------------------------------------------------------
CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, std::int64_t T_0, std::int64_t T_mult,
                                                         double eta_min)
    : LRScheduler(optimizer), T_0_(T_0), T_mult_(T_mult), T_i_(T_0), eta_min_(eta_min) {
  if (T_0 <= 0) throw ValueError("CosineAnnealingWarmRestarts: Expected positive integer T_0, but got " + std::to_string(T_0));
  if (T_mult < 1) {
    throw ValueError("CosineAnnealingWarmRestarts: Expected integer T_mult >= 1, but got " + std::to_string(T_mult));
  }
  restart();
}
void CosineAnnealingWarmRestarts::advance() {
  // T_cur counts the epochs since the last restart; at T_i the cycle restarts, T_mult times longer.
  if (++T_cur_ >= T_i_) {
    T_cur_ -= T_i_;
    if (!checked::mul(T_i_, T_mult_, T_i_)) {
      throw ValueError("CosineAnnealingWarmRestarts: the period T_i overflowed int64 after this many restarts "
                       "(T_0=" + std::to_string(T_0_) + ", T_mult=" + std::to_string(T_mult_) + ").");
    }
  }
}
void CosineAnnealingWarmRestarts::restart() {
  T_i_ = T_0_;
  T_cur_ = 0;
  LRScheduler::restart();
}
double CosineAnnealingWarmRestarts::next_lr(std::size_t g, double) const {
  const double pi = std::numbers::pi;
  return eta_min_ + (base_lrs_[g] - eta_min_) *
                        (1 + std::cos(pi * static_cast<double>(T_cur_) / static_cast<double>(T_i_))) / 2;
}
std::map<std::string, double> CosineAnnealingWarmRestarts::state_dict() const {
  auto s = LRScheduler::state_dict();
  s["T_cur"] = static_cast<double>(T_cur_);
  s["T_i"] = static_cast<double>(T_i_);
  return s;
}
void CosineAnnealingWarmRestarts::load_state_dict(const std::map<std::string, double>& s) {
  auto get = [&](const char* k) {
    auto it = s.find(k);
    if (it == s.end()) throw ValueError(std::string("CosineAnnealingWarmRestarts.load_state_dict: missing \"") + k + "\"");
    return it->second;
  };
  // Read everything before changing anything.
  const std::int64_t t_i = checked::to_int64(get("T_i"), "CosineAnnealingWarmRestarts.load_state_dict: \"T_i\"", 1);
  const std::int64_t t_cur =
      checked::to_int64(get("T_cur"), "CosineAnnealingWarmRestarts.load_state_dict: \"T_cur\"", 0, t_i - 1);
  LRScheduler::load_state_dict(s);
  T_i_ = t_i;
  T_cur_ = t_cur;
}

// ---- OneCycleLR ---------------------------------------------------------------------------------------
OneCycleLR::OneCycleLR(Optimizer& optimizer, double max_lr, OneCycleLROptions options)
    : OneCycleLR(optimizer, std::vector<double>(optimizer.num_param_groups(), max_lr), options) {}

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, OneCycleLROptions o)
    : LRScheduler(optimizer), o_(o), max_lrs_(std::move(max_lrs)) {
  // torch.optim.lr_scheduler.OneCycleLR's checks, in its order and words.
  if (o.total_steps == 0 && o.epochs == 0 && o.steps_per_epoch == 0) {
    throw ValueError("OneCycleLR: You must define either total_steps OR (epochs AND steps_per_epoch)");
  }
  if (o.total_steps != 0) {
    if (o.total_steps < 0) {
      throw ValueError("OneCycleLR: Expected positive integer total_steps, but got " + std::to_string(o.total_steps));
    }
    total_steps_ = o.total_steps;
  } else {
    if (o.epochs <= 0) throw ValueError("OneCycleLR: Expected positive integer epochs, but got " + std::to_string(o.epochs));
    if (o.steps_per_epoch <= 0) {
      throw ValueError("OneCycleLR: Expected positive integer steps_per_epoch, but got " +
                       std::to_string(o.steps_per_epoch));
    }
    if (!checked::mul(o.epochs, o.steps_per_epoch, total_steps_)) {
      throw ValueError("OneCycleLR: epochs * steps_per_epoch overflows int64.");
    }
  }
  if (!(o.pct_start >= 0 && o.pct_start <= 1)) {
    throw ValueError("OneCycleLR: Expected float between 0 and 1 pct_start, but got " + std::to_string(o.pct_start));
  }
  if (max_lrs_.size() != base_lrs_.size()) {
    throw ValueError("OneCycleLR: expected " + std::to_string(base_lrs_.size()) + " values for max_lr, got " +
                     std::to_string(max_lrs_.size()));
  }
  const double total = static_cast<double>(total_steps_);
  if (o.three_phase) {
    phases_ = {{o.pct_start * total - 1, 0, 1, 0, 1},
               {2 * o.pct_start * total - 2, 1, 0, 1, 0},
               {total - 1, 0, 2, 0, 0}};
  } else {
    phases_ = {{o.pct_start * total - 1, 0, 1, 0, 1}, {total - 1, 1, 2, 1, 0}};
  }
  // The initial lr (every group's base lr from now on, as PyTorch overwrites group["initial_lr"]) and
  // the final one.
  for (std::size_t g = 0; g < base_lrs_.size(); ++g) {
    base_lrs_[g] = max_lrs_[g] / o.div_factor;
    optimizer.initial_lr[g] = base_lrs_[g];
    min_lrs_.push_back(base_lrs_[g] / o.final_div_factor);
  }
  if (o.cycle_momentum) {
    for (std::size_t g = 0; g < base_lrs_.size(); ++g) {
      if (!momentum_of(g)) {
        throw ValueError("OneCycleLR: optimizer must support momentum with `cycle_momentum` option enabled "
                         "(SGD, RMSprop, Adam and AdamW do). Hint: pass .cycle_momentum = false.");
      }
    }
  }
  restart();
}

// The optimizer's momentum of group g (Adam's beta1), or null when it has none.
double* OneCycleLR::momentum_of(std::size_t g) const {
  if (auto* sgd = dynamic_cast<SGD*>(&optimizer_)) return &sgd->options(g).momentum;
  if (auto* rms = dynamic_cast<RMSprop*>(&optimizer_)) return &rms->options(g).momentum;
  if (auto* adam = dynamic_cast<Adam*>(&optimizer_)) return &adam->options(g).betas.first;
  if (auto* adamw = dynamic_cast<AdamW*>(&optimizer_)) return &adamw->options(g).betas.first;
  return nullptr;
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (o_.anneal_strategy == OneCycleLROptions::Anneal::Cos) {
    return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
  }
  return (end - start) * pct + start;
}

// The lr of `step` (and, with cycle_momentum, the momentum it writes): the phase that holds the step,
// and how far into it the step is.
double OneCycleLR::compute(std::size_t g, std::int64_t step) const {
  if (step > total_steps_) {
    throw ValueError("OneCycleLR: Tried to step " + std::to_string(step + 1) + " times. The specified number of "
                     "total steps is " + std::to_string(total_steps_) + ". Hint: total_steps counts batches, "
                     "epochs * steps_per_epoch.");
  }
  const double lrs[3] = {base_lrs_[g], max_lrs_[g], min_lrs_[g]};
  const double moms[2] = {o_.max_momentum, o_.base_momentum};
  const double s = static_cast<double>(step);
  double start_step = 0;
  for (std::size_t i = 0; i < phases_.size(); ++i) {
    const Phase& ph = phases_[i];
    if (s <= ph.end_step || i + 1 == phases_.size()) {
      const double pct = (s - start_step) / (ph.end_step - start_step);
      if (o_.cycle_momentum) *momentum_of(g) = anneal(moms[ph.start_m], moms[ph.end_m], pct);
      return anneal(lrs[ph.start], lrs[ph.end], pct);
    }
    start_step = ph.end_step;
  }
  return lrs[0];  // not reached: the last phase always matches
}
double OneCycleLR::next_lr(std::size_t g, double) const { return compute(g, last_epoch_); }
double OneCycleLR::start_lr(std::size_t g) const { return compute(g, 0); }

// ---- SequentialLR ------------------------------------------------------------------------------------
SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers,
                           std::vector<std::int64_t> milestones)
    : optimizer_(optimizer), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  if (schedulers_.empty()) throw ValueError("SequentialLR: expects at least one scheduler.");
  for (std::size_t i = 0; i < schedulers_.size(); ++i) {
    if (!schedulers_[i] || &schedulers_[i]->optimizer_ != &optimizer) {
      throw ValueError("SequentialLR: Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                       "but got schedulers at index " + std::to_string(i) + " to be different than the optimizer "
                       "passed in.");
    }
  }
  if (milestones_.size() + 1 != schedulers_.size()) {
    throw ValueError("SequentialLR: Sequential Schedulers expects number of schedulers provided to be one more than "
                     "the number of milestone points, but got number of schedulers " +
                     std::to_string(schedulers_.size()) + " and the number of milestones to be equal to " +
                     std::to_string(milestones_.size()));
  }
  // Back to the initial lrs, then only the first scheduler starts (PyTorch resets the groups'
  // lr and redoes the first scheduler's initial step; the others start at their milestones).
  for (std::size_t g = 0; g < optimizer.initial_lr.size(); ++g) optimizer.set_lr(optimizer.initial_lr[g], g);
  for (LRScheduler* s : schedulers_) s->last_epoch_ -= 1;
  schedulers_[0]->restart();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step() {
  ++last_epoch_;
  // The scheduler in charge: the number of milestones at or before this epoch (bisect_right).
  const auto idx =
      static_cast<std::size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin());
  LRScheduler* s = schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_) {
    s->restart();  // a scheduler taking over starts from its own epoch 0
  } else {
    s->step();
  }
  last_lr_ = s->get_last_lr();
}

std::map<std::string, double> SequentialLR::state_dict() const {
  std::map<std::string, double> out{{"last_epoch", static_cast<double>(last_epoch_)}};
  for (std::size_t i = 0; i < schedulers_.size(); ++i)
    for (const auto& [k, v] : schedulers_[i]->state_dict()) out[std::to_string(i) + "." + k] = v;
  for (std::size_t g = 0; g < last_lr_.size(); ++g) out["last_lr." + std::to_string(g)] = last_lr_[g];
  return out;
}

void SequentialLR::load_state_dict(const std::map<std::string, double>& s) {
  auto it = s.find("last_epoch");
  if (it == s.end()) throw ValueError("SequentialLR.load_state_dict: missing \"last_epoch\"");
  const std::int64_t epoch = checked::to_int64(it->second, "SequentialLR.load_state_dict: \"last_epoch\"", 0);
  std::vector<std::map<std::string, double>> parts(schedulers_.size());
  for (const auto& [k, v] : s) {
    const auto dot = k.find('.');
    if (dot == std::string::npos || k.compare(0, 8, "last_lr.") == 0) continue;
    const std::string head = k.substr(0, dot);
    if (head.empty() || head.find_first_not_of("0123456789") != std::string::npos || head.size() > 6) continue;
    const auto i = static_cast<std::size_t>(std::stoul(head));
    if (i < parts.size()) parts[i][k.substr(dot + 1)] = v;
  }
  for (std::size_t i = 0; i < schedulers_.size(); ++i) schedulers_[i]->load_state_dict(parts[i]);
  last_epoch_ = epoch;
  for (std::size_t g = 0; g < last_lr_.size(); ++g) {
    auto l = s.find("last_lr." + std::to_string(g));
    if (l != s.end()) last_lr_[g] = checked::finite(l->second, "SequentialLR.load_state_dict: \"last_lr\"");
  }
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
