// Checkpoints and optimizer/scheduler state from untrusted files: the numbers in them once went
// through undefined float -> int casts (epoch 1e300, Adam step 1e158) or were accepted as poison
// (a NaN learning rate turns every weight NaN). Each is now refused with a clear kindling::Error,
// and a refused state leaves the optimizer as it was. Also: BCEWithLogits refuses integer targets.
#include <catch2/catch.hpp>
#include <cmath>

#include "fuzz/fuzz_inputs.hpp"
#include "train/train_test_utils.hpp"

namespace kd = kindling;
namespace optim = kindling::optim;
namespace train = kindling::train;
using Catch::Contains;

namespace {
constexpr auto* message_of = &kdtest::error_message;
std::string find_input(const std::string& part) {
  for (const auto& p : kdtest::fuzz_inputs("regressions", "checkpoint"))
    if (p.find(part) != std::string::npos) return p;
  FAIL("no regression input named " << part);
  return {};
}
}  // namespace

TEST_CASE("checkpoint: epoch 1e300, nan, inf or 2.5 is refused, not cast") {
  for (const char* name : {"epoch_1e300", "epoch_nan", "epoch_inf", "epoch_2_5"}) {
    INFO(name);
    const std::string path = find_input(name);
    CHECK_THAT(message_of([&] { train::load_checkpoint(path); }), Contains(path) && Contains("\"epoch\""));
  }
  CHECK_THAT(message_of([&] { train::load_checkpoint(find_input("epoch_2_5")); }), Contains("fraction"));
  // the seed (epoch "3") loads
  CHECK(train::load_checkpoint(kdtest::fuzz_inputs("corpus", "checkpoint").at(0)).epoch == 3);
}

TEST_CASE("checkpoint: 2^61 float64 elements on 0 bytes are refused") {
  const std::string path = find_input("f64_numel_times_8_wraps");
  CHECK_THAT(message_of([&] { train::load_checkpoint(path); }), Contains(path) && Contains("too large"));
}

TEST_CASE("Adam.load_state_dict: step 1e158 or NaN, and a NaN lr, are refused and change nothing") {
  kd::nn::Linear layer(3, 2);
  optim::Adam adam(layer.parameters(), {.lr = 1e-3});
  for (const char* name : {"adam_step_1e158", "adam_step_nan", "nan_lr"}) {
    INFO(name);
    const auto c = train::load_checkpoint(find_input(name));
    const std::string m = message_of([&] { adam.load_state_dict(c.optimizer); });
    CHECK_THAT(m, Contains("Adam.load_state_dict"));
    CHECK_THAT(m, Contains(std::string(name).find("lr") != std::string::npos ? "group.0.lr" : "step"));
    CHECK(adam.lr() == 1e-3);  // untouched
  }
  CHECK_THROWS_AS(optim::Adam(layer.parameters(), {.lr = std::nan("")}), kd::ValueError);
  CHECK_THROWS_AS(optim::SGD(layer.parameters(), {.lr = std::nan("")}), kd::ValueError);
  const auto good = train::load_checkpoint(kdtest::fuzz_inputs("corpus", "checkpoint").at(0));
  CHECK_NOTHROW(adam.load_state_dict(good.optimizer));
  optim::SGD sgd(layer.parameters(), {.lr = 0.1, .momentum = 0.9});
  CHECK_NOTHROW(sgd.load_state_dict(good.optimizer));
  CHECK_THAT(message_of([&] { sgd.load_state_dict(train::load_checkpoint(find_input("nan_lr")).optimizer); }),
             Contains("SGD.load_state_dict") && Contains("NaN"));
}

TEST_CASE("LRScheduler.load_state_dict: counters must be whole numbers in range") {
  kd::nn::Linear layer(3, 2);
  optim::SGD sgd(layer.parameters(), {.lr = 0.1});
  optim::StepLR step(sgd, 2);
  const auto c = train::load_checkpoint(find_input("scheduler_last_epoch_1e300"));
  CHECK_THAT(message_of([&] { step.load_state_dict(c.scheduler); }), Contains("last_epoch") && Contains("1e+300"));
  optim::ReduceLROnPlateau plateau(sgd);
  CHECK_THAT(message_of([&] { plateau.load_state_dict(c.scheduler); }), Contains("ReduceLROnPlateau"));
  const auto good = train::load_checkpoint(kdtest::fuzz_inputs("corpus", "checkpoint").at(0));
  CHECK_NOTHROW(plateau.load_state_dict(good.scheduler));  // best = inf is legitimate
}

TEST_CASE("BCEWithLogitsLoss: integer targets are refused (as in PyTorch), float targets work") {
  kd::Tensor x = kd::randn({4});
  kd::Tensor y = kd::tensor({1, 0, 1, 1});  // int64
  CHECK_THROWS_AS(kd::nn::BCEWithLogitsLoss()(x, y), kd::DTypeError);
  CHECK_THROWS_WITH(kd::nn::BCEWithLogitsLoss()(x, y), Contains("int64") && Contains("to(kd::kFloat32)"));
  CHECK_NOTHROW(kd::nn::BCEWithLogitsLoss()(x, y.to(kd::kFloat32)));
}

TEST_CASE("checkpoint: every fuzz regression input is refused or loads into a sane state") {
  // (Some regression files hold a bad optimizer or scheduler state but a loadable checkpoint.)
  for (const auto& path : kdtest::fuzz_inputs("regressions", "checkpoint")) {
    INFO(path);
    try {
      const auto c = train::load_checkpoint(path);
      kd::nn::Linear layer(3, 2);
      optim::Adam adam(layer.parameters());
      optim::StepLR sched(adam, 2);
      CHECK_THROWS_AS([&] { adam.load_state_dict(c.optimizer); sched.load_state_dict(c.scheduler); }(), kd::ValueError);
    } catch (const kd::IOError& e) {
      CHECK_THAT(std::string(e.what()), Contains(path));
    } catch (const kd::ValueError& e) {
      CHECK_THAT(std::string(e.what()), Contains(path));
    }
  }
}
