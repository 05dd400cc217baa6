// LR schedulers: their state survives a state_dict round trip (a resumed run follows the same lr
// sequence), and bad arguments are refused. The sequences themselves are checked against PyTorch in
// tests/parity/ch05_optim.
#include <catch2/catch.hpp>
#include <kindling/train.hpp>

#include <memory>

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

namespace {
// Runs `make(opt)` straight for `epochs`, and for `k` epochs + state_dict -> fresh optimizer and
// scheduler -> the rest: the lrs must agree to the last bit. `Sched` is built by `make` and stepped.
template <class Make>
void check_scheduler_resume(Make make, int epochs = 25, int k = 9) {
  kd::Tensor p = param(), q = param();
  optim::SGD a({p}, {.lr = 0.1});
  auto straight = make(a);
  std::vector<double> expected;
  for (int e = 0; e < epochs; ++e) {
    straight->step();
    expected.push_back(a.lr());
  }
  std::map<std::string, double> saved;
  optim::OptimizerState opt_state;
  {
    optim::SGD b({q}, {.lr = 0.1});
    auto first = make(b);
    for (int e = 0; e < k; ++e) first->step();
    saved = first->state_dict();
    opt_state = b.state_dict();
  }
  optim::SGD c({q}, {.lr = 0.1});
  auto second = make(c);
  c.load_state_dict(opt_state);
  second->load_state_dict(saved);
  for (int e = k; e < epochs; ++e) {
    second->step();
    CHECK(c.lr() == expected[e]);
  }
}

// A SequentialLR and the parts it owns here, so the whole can be made and stepped like one scheduler.
struct WarmupThenRestarts {
  optim::LinearLR warmup;
  optim::CosineAnnealingWarmRestarts restarts;
  optim::SequentialLR seq;
  explicit WarmupThenRestarts(optim::Optimizer& o)
      : warmup(o, 0.2, 1.0, 4), restarts(o, 3, 2), seq(o, {&warmup, &restarts}, {4}) {}
  void step() { seq.step(); }
  std::map<std::string, double> state_dict() const { return seq.state_dict(); }
  void load_state_dict(const std::map<std::string, double>& s) { seq.load_state_dict(s); }
};
}  // namespace

TEST_CASE("scheduler: warm restarts, OneCycleLR and SequentialLR resume from their state_dict (issue 18)") {
  check_scheduler_resume([](optim::Optimizer& o) { return std::make_unique<optim::CosineAnnealingWarmRestarts>(o, 3, 2); });
  check_scheduler_resume([](optim::Optimizer& o) {
    return std::make_unique<optim::OneCycleLR>(o, 1.0, optim::OneCycleLROptions{.total_steps = 30});
  });
  check_scheduler_resume([](optim::Optimizer& o) { return std::make_unique<WarmupThenRestarts>(o); });
}

TEST_CASE("scheduler: issue 18's schedulers refuse bad arguments with PyTorch's words") {
  kd::Tensor p = param();
  optim::SGD opt({p}, {.lr = 0.1});
  CHECK_THROWS_WITH(optim::LinearLR(opt, 0.0), Contains("Starting multiplicative factor"));
  CHECK_THROWS_WITH(optim::CosineAnnealingWarmRestarts(opt, 0), Contains("Expected positive integer T_0"));
  CHECK_THROWS_WITH(optim::OneCycleLR(opt, 1.0, {}), Contains("total_steps OR (epochs AND steps_per_epoch)"));
  CHECK_THROWS_WITH(optim::LambdaLR(opt, std::vector<optim::LambdaLR::Lambda>{}), Contains("Expected 1 lr_lambdas"));
  optim::OneCycleLR one(opt, 1.0, {.total_steps = 2});
  one.step();
  one.step();
  CHECK_THROWS_WITH(one.step(), Contains("Tried to step 4 times") && Contains("total steps is 2"));
  kd::Tensor other = param();
  optim::SGD opt2({other}, {.lr = 0.1});
  optim::StepLR elsewhere(opt2, 3);
  optim::StepLR here(opt, 3);
  CHECK_THROWS_WITH(optim::SequentialLR(opt, {&here, &elsewhere}, {2}), Contains("same optimizer"));
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
