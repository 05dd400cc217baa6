// LR schedulers: their state survives a state_dict round trip (a resumed run follows the same lr
// sequence), and bad arguments are refused. The sequences themselves are checked against PyTorch in
// tests/parity/ch05_optim.
#include <catch2/catch.hpp>
#include <kindling/train.hpp>

namespace kd = kindling;
namespace optim = kindling::optim;
using Catch::Contains;

namespace {
kd::Tensor param() { return kd::zeros({1}).requires_grad_(); }
}  // namespace

TEST_CASE("scheduler: StepLR multiplies by gamma every step_size epochs") {
  kd::Tensor p = param();
  optim::SGD opt({p}, {.lr = 1.0});
  optim::StepLR sched(opt, 3, 0.5);
  std::vector<double> lrs;
  for (int e = 0; e < 7; ++e) {
    sched.step();
    lrs.push_back(opt.lr());
  }
  // Invariant rather than typed numbers: lr = base * gamma^(epoch / step_size).
  for (int e = 0; e < 7; ++e) CHECK(lrs[e] == Approx(std::pow(0.5, (e + 1) / 3)));
  CHECK(sched.get_last_lr().at(0) == opt.lr());
  CHECK(sched.last_epoch() == 7);
}

TEST_CASE("scheduler: an epoch scheduler resumes from its state_dict") {
  kd::Tensor p = param(), q = param();
  optim::SGD a({p}, {.lr = 0.1});
  optim::CosineAnnealingLR straight(a, 10, 0.001);
  std::vector<double> expected;
  for (int e = 0; e < 15; ++e) {
    straight.step();
    expected.push_back(a.lr());
  }
  std::map<std::string, double> saved;
  optim::OptimizerState opt_state;
  {
    optim::SGD b({q}, {.lr = 0.1});
    optim::CosineAnnealingLR first(b, 10, 0.001);
    for (int e = 0; e < 6; ++e) first.step();
    saved = first.state_dict();
    opt_state = b.state_dict();
  }
  optim::SGD c({q}, {.lr = 0.1});
  optim::CosineAnnealingLR second(c, 10, 0.001);
  c.load_state_dict(opt_state);  // the optimizer carries the current lr
  second.load_state_dict(saved);
  CHECK(second.last_epoch() == 6);
  for (int e = 6; e < 15; ++e) {
    second.step();
    CHECK(c.lr() == expected[e]);  // bit-identical
  }
}

TEST_CASE("scheduler: ReduceLROnPlateau keeps best, bad epochs and cooldown in its state_dict") {
  const std::vector<double> metric = {1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.9, 0.9, 0.9, 0.9, 0.9};
  kd::Tensor p = param(), q = param();
  optim::SGD a({p}, {.lr = 0.1});
  optim::ReduceLROnPlateau straight(a, {.factor = 0.5, .patience = 2, .cooldown = 1});
  std::vector<double> expected;
  for (double m : metric) {
    straight.step(m);
    expected.push_back(a.lr());
  }
  CHECK(expected.back() < 0.1);  // the plateau did cut the lr

  optim::SGD b({q}, {.lr = 0.1});
  optim::ReduceLROnPlateau first(b, {.factor = 0.5, .patience = 2, .cooldown = 1});
  for (int e = 0; e < 4; ++e) first.step(metric[e]);
  CHECK(first.best() == 0.9);
  CHECK(first.num_bad_epochs() == 2);
  const auto saved = first.state_dict();
  const auto opt_state = b.state_dict();

  optim::SGD c({q}, {.lr = 0.1});
  optim::ReduceLROnPlateau second(c, {.factor = 0.5, .patience = 2, .cooldown = 1});
  c.load_state_dict(opt_state);
  second.load_state_dict(saved);
  CHECK(second.best() == 0.9);
  for (std::size_t e = 4; e < metric.size(); ++e) {
    second.step(metric[e]);
    CHECK(c.lr() == expected[e]);
  }
}

TEST_CASE("scheduler: bad arguments and incomplete states are refused") {
  kd::Tensor p = param();
  optim::SGD opt({p}, {.lr = 0.1});
  CHECK_THROWS_WITH(optim::StepLR(opt, 0), Contains("step_size"));
  CHECK_THROWS_WITH(optim::CosineAnnealingLR(opt, -1), Contains("T_max"));
  CHECK_THROWS_WITH(optim::ReduceLROnPlateau(opt, {.factor = 1.5}), Contains("factor"));
  optim::StepLR step(opt, 2);
  CHECK_THROWS_WITH(step.load_state_dict({{"last_epoch", 3}}), Contains("missing") && Contains("base_lr.0"));
  optim::ReduceLROnPlateau plateau(opt);
  CHECK_THROWS_WITH(plateau.load_state_dict({{"best", 1.0}}), Contains("num_bad_epochs"));
}
