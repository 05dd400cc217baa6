// ch07.ex9 — find the bug: debug::find_the_bug::validate must report the network's accuracy on the
// validation data as it is: the same answer every time, as high as the network deserves. The network is
// one the PyTorch twin trained for this grading run on augmented batches (an MLP, pytorch.py); the test
// loads it and reports validate()'s answers, which the grader compares with PyTorch's accuracy of that
// network on the validation data, outside this process.
#include <string>

#include "ch07_grading.hpp"

using namespace ch07_grading;

namespace {

std::shared_ptr<ftb::MLP> trained_network() {
  const kd::Tensor w1 = grading::input("fc1.weight"), w2 = grading::input("fc2.weight");
  auto model = std::make_shared<ftb::MLP>(w1.size(1), w1.size(0), w2.size(0));
  load_linears(*model);
  return model;
}

}  // namespace

TEST_CASE("validate: the same answer for the same network, every time", "[ch07][ex9][pts=10]") {
  auto model = trained_network();
  const ftb::Problem test = problem("held_out_");
  for (int call = 1; call <= 4; ++call)
    grading::expect("validate(), call " + std::to_string(call), ftb::validate(*model, test));
}

TEST_CASE("validate: the network's own accuracy on the validation data", "[ch07][ex9][pts=10]") {
  auto model = trained_network();
  grading::expect("validate()", ftb::validate(*model, problem("held_out_")));
}
