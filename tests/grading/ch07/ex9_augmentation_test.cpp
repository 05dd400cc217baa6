// ch07.ex9 — find the bug: debug::find_the_bug::validate must report the network's accuracy on the
// validation data as it is: the same answer every time, as high as the network deserves. The network
// is trained here, by the test (with augmentation), so only validate() comes from the answer file.
#include "ch07_grading.hpp"

using namespace ch07_grading;

namespace {

/// An MLP trained by the test on augmented training batches (200 steps of Adam, full batch).
std::shared_ptr<ftb::MLP> trained_network() {
  const ftb::Problem train = training_set();
  kd::manual_seed(5);
  auto model = std::make_shared<ftb::MLP>(kFeatures, ftb::kHidden, kClasses);
  kd::optim::Adam opt(model->parameters(), {.lr = 1e-2});
  kd::nn::CrossEntropyLoss criterion;
  for (int step = 0; step < ftb::kSteps; ++step) {
    opt.zero_grad();
    criterion((*model)(ftb::augment(train.x)), train.y).backward();
    opt.step();
  }
  return model;
}

}  // namespace

TEST_CASE("validate: the same answer for the same network, every time", "[ch07][ex9][pts=10]") {
  auto model = trained_network();
  const ftb::Problem test = held_out_set();
  const double first = ftb::validate(*model, test);
  for (int call = 0; call < 3; ++call) {
    const double again = ftb::validate(*model, test);
    INFO("call " << call + 2 << ": validate() says " << again << ", the first call said " << first);
    CHECK(again == first);
  }
}

TEST_CASE("validate: the network's own accuracy on the validation data", "[ch07][ex9][pts=10]") {
  auto model = trained_network();
  const ftb::Problem test = held_out_set();
  const double expected = ftb::accuracy(*model, test.x, test.y);
  const double got = ftb::validate(*model, test);
  INFO("validate() says " << got << "; the network classifies " << expected
       << " of the 1024 held-out samples, as they are, correctly");
  CHECK(expected >= 0.75);
  CHECK(std::abs(got - expected) < 1e-12);
}
