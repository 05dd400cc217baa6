// ch07.ex8 — find the bug: debug::find_the_bug::train_features must train every layer (outcome only:
// the network it returns, compared here with the weights it started from, and its loss).
#include "ch07_grading.hpp"

using namespace ch07_grading;

namespace {

/// How far a trained layer moved from where it started: ||w - w0|| / ||w0||. The starting weights are
/// the ones every program starts from (start_run: manual_seed(0), then a new MLP).
double moved(const kd::Tensor& trained, const kd::Tensor& initial) {
  kd::NoGradGuard no_grad;
  return (trained - initial).norm().item<double>() / initial.norm().item<double>();
}

}  // namespace

TEST_CASE("train_features: the loss falls below 0.1", "[ch07][ex8][pts=10]") {
  const ftb::Problem train = training_set();
  check_learned(ftb::train_features(train), train, 0.1);
}

TEST_CASE("train_features: the first layer learns", "[ch07][ex8][pts=10]") {
  const ftb::Problem train = training_set();
  const ftb::Run run = ftb::train_features(train);
  REQUIRE(run.model != nullptr);
  kd::manual_seed(0);
  const ftb::MLP initial(kFeatures, ftb::kHidden, kClasses);
  const double m = moved(run.model->fc1.weight, initial.fc1.weight);
  INFO("fc1.weight moved by " << 100 * m << " % of its initial norm (needed: at least 5 %; a layer "
       "that no gradient reaches keeps its initial weights)");
  CHECK(m >= 0.05);
  check_generalises(run, 0.85);
}
