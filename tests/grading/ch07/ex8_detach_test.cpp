// ch07.ex8 — find the bug: debug::find_the_bug::train_features must train every layer. Judged by
// outcome, outside this process (see ch07_grading.hpp): the network it returns, evaluated by the grader,
// and how far its first layer moved from the weights every program starts from.
#include "ch07_grading.hpp"

using namespace ch07_grading;

TEST_CASE("train_features: the loss falls below 0.1", "[ch07][ex8][pts=10]") {
  report_run(ftb::train_features(training_set()));
}

TEST_CASE("train_features: the first layer learns", "[ch07][ex8][pts=10]") {
  const ftb::Problem train = training_set();
  const ftb::Run run = ftb::train_features(train);
  report_run(run);
  // The weights every program starts from (start_run: manual_seed(0), then a new MLP); the grader
  // measures ||fc1.weight - initial|| / ||initial||.
  kd::manual_seed(0);
  const ftb::MLP initial(train.x.size(1), ftb::kHidden, kClasses);
  grading::expect("initial fc1.weight", initial.fc1.weight.detach());
}
