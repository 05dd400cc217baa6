// GradScaler's rules that are not numbers: the order of calls, disabled scalers, float16
// gradients, state dicts. The scale sequences themselves are compared with PyTorch in
// tests/parity/ch06_amp.*.
#include <catch2/catch.hpp>
#include <kindling/amp.hpp>

#include <cmath>
#include <limits>
#include <optional>

namespace kd = kindling;
namespace amp = kindling::amp;
using Catch::Contains;

namespace {
// One parameter whose gradient we set by hand.
struct Setup {
  kd::Tensor w = kd::ones({3}).requires_grad_();
  kd::optim::SGD opt{{w}, {.lr = 1.0}};
  void grad(std::vector<float> g) { w.set_grad(kd::tensor(g, {3})); }
};
}  // namespace

TEST_CASE("grad scaler: scale multiplies by the scale, in float32 with shape [1] like PyTorch") {
  amp::GradScaler scaler({.init_scale = 8.0});
  const kd::Tensor s = scaler.scale(kd::tensor(0.5).to(kd::kHalf));
  CHECK(s.dtype() == kd::kFloat32);
  CHECK(s.shape() == kd::Shape{1});
  CHECK(s.item<float>() == 4.0f);
  // 65536 as a float16 would be inf; the float32 scale keeps the product finite.
  amp::GradScaler big;
  CHECK(big.scale(kd::ones({2}, {.dtype = kd::kHalf})).to_vector<float>() == std::vector<float>{65536, 65536});
}

TEST_CASE("grad scaler: step unscales, skips a step with inf or NaN gradients, and update backs off") {
  Setup s;
  amp::GradScaler scaler({.init_scale = 4.0});
  s.grad({4, 8, -4});
  CHECK(scaler.step(s.opt));
  CHECK(s.w.detach().to_vector<float>() == std::vector<float>{0, -1, 2});  // w - grad / 4
  scaler.update();
  CHECK(scaler.get_scale() == 4.0);
  CHECK(scaler.growth_tracker() == 1);
  for (float bad : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    s.grad({1, bad, 1});
    CHECK_FALSE(scaler.step(s.opt));
    CHECK(s.w.detach().to_vector<float>() == std::vector<float>{0, -1, 2});  // untouched
    scaler.update();
    CHECK(scaler.growth_tracker() == 0);
  }
  CHECK(scaler.get_scale() == 1.0);  // 4 -> 2 -> 1
}

TEST_CASE("grad scaler: the order of calls is checked like PyTorch's") {
  Setup s;
  amp::GradScaler scaler;
  CHECK_THROWS_WITH(scaler.update(), Contains("no inf checks were recorded"));
  s.grad({1, 1, 1});
  scaler.unscale_(s.opt);
  CHECK_THROWS_WITH(scaler.unscale_(s.opt), Contains("already been called"));
  scaler.step(s.opt);  // does not unscale a second time
  CHECK(s.w.detach().to_vector<float>()[0] == Approx(1.0f - 1.0f / 65536));
  CHECK_THROWS_WITH(scaler.step(s.opt), Contains("update()"));
  CHECK_THROWS_WITH(scaler.unscale_(s.opt), Contains("after step()"));
  scaler.update();
  s.grad({1, 1, 1});
  CHECK(scaler.step(s.opt));  // a new iteration
}

TEST_CASE("grad scaler: an optimizer with no gradient at all is refused, not stepped as a clean step") {
  // PyTorch: "No inf checks were recorded for this optimizer" in step(), then in update(); stepping
  // would count it as an iteration without infs and grow the scale on no evidence.
  Setup s;
  amp::GradScaler scaler({.init_scale = 4.0, .growth_interval = 1});
  CHECK_THROWS_WITH(scaler.step(s.opt), Contains("no inf checks were recorded for this optimizer"));
  CHECK(s.w.detach().to_vector<float>() == std::vector<float>{1, 1, 1});  // not stepped
  CHECK_THROWS_WITH(scaler.update(), Contains("no inf checks were recorded prior to update()"));
  CHECK(scaler.get_scale() == 4.0);  // not grown
  // unscale_ alone, with no gradient, records nothing either
  amp::GradScaler other;
  other.unscale_(s.opt);
  CHECK_THROWS_WITH(other.update(), Contains("no inf checks"));
  // one gradient is enough
  amp::GradScaler third({.init_scale = 4.0, .growth_interval = 1});
  s.grad({4, 4, 4});
  CHECK(third.step(s.opt));
  third.update();
  CHECK(third.get_scale() == 8.0);
}

TEST_CASE("grad scaler: a new optimizer where a destroyed one was is a new optimizer to it") {
  // PyTorch keys its per-optimizer state by id(optimizer); keyed by address, the second optimizer
  // below (built in the very storage of the first) got "unscale_() has already been called".
  kd::Tensor w = kd::ones({3}).requires_grad_();
  std::optional<kd::optim::SGD> opt;
  opt.emplace(std::vector<kd::Tensor>{w}, kd::optim::SGDOptions{.lr = 1.0});
  const void* where = &*opt;
  amp::GradScaler scaler;
  w.set_grad(kd::ones({3}));
  scaler.unscale_(*opt);
  opt.emplace(std::vector<kd::Tensor>{w}, kd::optim::SGDOptions{.lr = 1.0});
  REQUIRE(static_cast<const void*>(&*opt) == where);  // the same address
  CHECK_NOTHROW(scaler.unscale_(*opt));
  // A copy is another optimizer too; an assigned one keeps its own identity.
  kd::optim::SGD copy = *opt;
  CHECK(copy.id() != opt->id());
  const auto before = copy.id();
  copy = *opt;
  CHECK(copy.id() == before);
}

TEST_CASE("grad scaler: float16 gradients are refused, as in PyTorch") {
  kd::Tensor w = kd::ones({2}, {.dtype = kd::kHalf}).requires_grad_();
  kd::optim::SGD opt({w}, {.lr = 0.1});
  w.set_grad(kd::ones({2}, {.dtype = kd::kHalf}));
  amp::GradScaler scaler;
  CHECK_THROWS_AS(scaler.step(opt), kd::DTypeError);
}

TEST_CASE("grad scaler: a disabled scaler changes nothing") {
  Setup s;
  amp::GradScaler scaler({.enabled = false});
  const kd::Tensor loss = kd::tensor(3.0);
  CHECK(scaler.scale(loss).is_same(loss));
  s.grad({1, std::numeric_limits<float>::infinity(), 1});
  CHECK(scaler.step(s.opt));  // no inf check: the optimizer steps
  scaler.update();
  CHECK(scaler.get_scale() == 1.0);
  CHECK(scaler.state_dict().empty());
}

TEST_CASE("grad scaler: state_dict round trip, and bad state dicts are refused") {
  Setup s;
  amp::GradScaler a({.init_scale = 1024, .growth_interval = 5});
  for (int i = 0; i < 3; ++i) {
    s.grad({1, 1, 1});
    a.step(s.opt);
    a.update();
  }
  const auto sd = a.state_dict();
  CHECK(sd.at("scale").item<double>() == 1024);
  CHECK(sd.at("_growth_tracker").item<std::int64_t>() == 3);
  amp::GradScaler b;
  b.load_state_dict(sd);
  CHECK(b.get_scale() == 1024);
  CHECK(b.growth_tracker() == 3);
  CHECK(b.options().growth_interval == 5);
  auto bad = sd;
  bad["_growth_tracker"] = kd::tensor(7);  // >= growth_interval
  CHECK_THROWS_AS(b.load_state_dict(bad), kd::ValueError);
  bad = sd;
  bad["growth_interval"] = kd::tensor(2.5);
  CHECK_THROWS_AS(b.load_state_dict(bad), kd::ValueError);
  bad = sd;
  bad.erase("scale");
  CHECK_THROWS_WITH(b.load_state_dict(bad), Contains("'scale'"));
  bad = sd;
  bad["scale"] = kd::tensor(std::nan(""));
  CHECK_THROWS_AS(b.load_state_dict(bad), kd::ValueError);
  CHECK_THROWS_AS(amp::GradScaler({.backoff_factor = 1.5}), kd::ValueError);
}

TEST_CASE("grad scaler: update(new_scale) and a loaded growth_factor refuse scales that are not positive and finite") {
  Setup s;
  amp::GradScaler a({.init_scale = 1024});
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {std::nan(""), -1.0, 0.0, inf, 1e-50 /* 0 in float32 */, 1e39 /* inf in float32 */}) {
    CAPTURE(v);
    CHECK_THROWS_WITH(a.update(v), Contains("GradScaler.update: new_scale must be a positive, finite"));
    CHECK(a.get_scale() == 1024);  // unchanged by the refused call
  }
  a.update(512.0);
  CHECK(a.get_scale() == 512);

  const auto sd = a.state_dict();
  amp::GradScaler b;
  auto bad = sd;
  bad["growth_factor"] = kd::tensor(inf);
  CHECK_THROWS_WITH(b.load_state_dict(bad), Contains("growth_factor must be finite and > 1"));
  CHECK(b.get_scale() == 65536);  // nothing loaded
  CHECK_THROWS_AS(amp::GradScaler({.growth_factor = inf}), kd::ValueError);
}
