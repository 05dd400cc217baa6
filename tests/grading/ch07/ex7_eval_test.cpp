// ch07.ex7 — find the bug: debug::find_the_bug::evaluate must report the accuracy the network has in
// evaluation mode, the same every time, and leave the network as it found it. The network is
// trained here, by the test, so only evaluate() comes from the answer file.
#include <utility>
#include <vector>

#include "ch07_grading.hpp"

using namespace ch07_grading;

namespace {

/// A DropoutMLP trained by the test on the training set (100 steps of Adam, batches of 64).
std::shared_ptr<ftb::DropoutMLP> trained_network() {
  const ftb::Problem train = training_set();
  kd::manual_seed(3);
  auto model = std::make_shared<ftb::DropoutMLP>(kFeatures, 64, kClasses);
  kd::optim::Adam opt(model->parameters(), {.lr = 1e-2});
  kd::nn::CrossEntropyLoss criterion;
  model->train();
  for (int step = 0; step < 100; ++step) {
    const std::int64_t start = (step * 64) % train.x.size(0);
    opt.zero_grad();
    criterion((*model)(train.x.narrow(0, start, 64)), train.y.narrow(0, start, 64)).backward();
    opt.step();
  }
  return model;
}

/// The network's accuracy in eval() mode, computed here: one batch, no gradients.
double eval_accuracy(ftb::DropoutMLP& model, const ftb::Problem& p) {
  const bool was_training = model.is_training();
  model.eval();
  kd::NoGradGuard no_grad;
  const double correct = (model(p.x).argmax(1) == p.y).sum().item<double>();
  model.train(was_training);
  return correct / static_cast<double>(p.y.size(0));
}

/// Every parameter and buffer (BatchNorm's running statistics and batch count), copied.
std::vector<std::pair<std::string, kd::Tensor>> snapshot(ftb::DropoutMLP& model) {
  std::vector<std::pair<std::string, kd::Tensor>> out;
  for (auto& [name, t] : model.state_dict()) out.emplace_back(name, t.detach().clone());
  return out;
}

}  // namespace

TEST_CASE("evaluate: the reported accuracy is the network's own, every time", "[ch07][ex7][pts=10]") {
  auto model = trained_network();
  const ftb::Problem test = held_out_set();
  const double expected = eval_accuracy(*model, test);
  for (int call = 0; call < 3; ++call) {
    model->train();  // as a training loop leaves it between epochs
    const double got = ftb::evaluate(*model, test);
    INFO("call " << call << ": evaluate() says " << got << "; the network in eval() mode classifies "
         << expected << " of the 1024 held-out samples correctly");
    CHECK(std::abs(got - expected) < 1e-12);
  }
}

TEST_CASE("evaluate: the network is the same afterwards", "[ch07][ex7][pts=10]") {
  auto model = trained_network();
  const ftb::Problem test = held_out_set();
  model->train();
  const auto before = snapshot(*model);
  (void)ftb::evaluate(*model, test);
  const auto after = snapshot(*model);
  REQUIRE(before.size() == after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    INFO(before[i].first << " changed during evaluate() (BatchNorm updates its running statistics in "
         "train() mode)");
    CHECK(kd::equal(before[i].second, after[i].second));
  }
}
