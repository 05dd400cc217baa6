// ch05.ex3 — ReduceLROnPlateau::step and is_better, against torch.optim.lr_scheduler.ReduceLROnPlateau.
#include "ch05_grading.hpp"

using namespace ch05_grading;
using Opts = kd::optim::ReduceLROnPlateauOptions;

namespace {
std::vector<double> metrics() { return grading::input("metrics").to_vector<double>(); }
}  // namespace

TEST_CASE("ReduceLROnPlateau: the lr sequence with patience 2", "[ch05][ex3][pts=3]") {
  grading::expect("lr after each step", plateau_lrs(metrics(), {.patience = 2}));
  grading::expect("factor 0.5", plateau_lrs(metrics(), {.factor = 0.5, .patience = 2}));
}

TEST_CASE("ReduceLROnPlateau: cooldown, min_lr and threshold", "[ch05][ex3][pts=4]") {
  grading::expect("cooldown 3", plateau_lrs(metrics(), {.patience = 1, .cooldown = 3}));
  grading::expect("min_lr 0.05", plateau_lrs(metrics(), {.factor = 0.5, .patience = 1, .min_lr = 0.05}));
  grading::expect("threshold 0.1 (rel)", plateau_lrs(metrics(), {.patience = 1, .threshold = 0.1}));
  grading::expect("threshold 0.05 (abs)",
                  plateau_lrs(metrics(), {.patience = 1, .threshold = 0.05, .threshold_mode = Opts::ThresholdMode::Abs}));
}

TEST_CASE("ReduceLROnPlateau: mode max", "[ch05][ex3][pts=2]") {
  grading::expect("max, patience 1", plateau_lrs(metrics(), {.mode = Opts::Mode::Max, .patience = 1}));
  grading::expect("max, abs threshold 0.02", plateau_lrs(metrics(), {.mode = Opts::Mode::Max, .patience = 1, .threshold = 0.02,
                                                                      .threshold_mode = Opts::ThresholdMode::Abs}));
}

TEST_CASE("ReduceLROnPlateau: cuts smaller than eps are skipped", "[ch05][ex3][pts=1]") {
  grading::expect("min_lr 0.9999999999, factor 0.5", plateau_lrs(metrics(), {.factor = 0.5, .patience = 0, .min_lr = 0.9999999999}));
  grading::expect("eps 0.6", plateau_lrs(metrics(), {.factor = 0.5, .patience = 0, .eps = 0.6}));
}
