// ex4 — ReduceLROnPlateau's logic.
#include "ch05/training_exercises.hpp"

#include <limits>

namespace kindling::exercises::ch05 {

Plateau::Plateau(double factor, std::int64_t patience, double threshold) {
  // BEGIN SOLUTION ex4: remember the options; best starts at +infinity
  factor_ = factor;
  patience_ = patience;
  threshold_ = threshold;
  best_ = std::numeric_limits<double>::infinity();
  // END SOLUTION
}

double Plateau::step(double metric, double lr) {
  // BEGIN SOLUTION ex4: better = metric < best * (1 - threshold); reduce when bad epochs > patience
  if (metric < best_ * (1 - threshold_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (num_bad_epochs_ > patience_) {
    const double reduced = lr * factor_;
    if (lr - reduced > 1e-8) lr = reduced;  // PyTorch's eps: ignore negligible changes
    num_bad_epochs_ = 0;
  }
  return lr;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch05
