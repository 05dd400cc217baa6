// ch03.ex3 — Dropout: identity in eval, inverted dropout in training (zeros with probability p, survivors
// scaled by 1/(1-p)), gradients through the same mask, p checked.
#include "ch03_grading.hpp"

using namespace ch03_grading;

namespace {
/// Fraction of zeros in t.
double zero_fraction(const kd::Tensor& t) {
  return t.eq(kd::zeros_like(t)).to(kd::kFloat64).mean().item<double>();
}
}  // namespace

TEST_CASE("ch03.ex3: in eval() Dropout returns its input unchanged", "[ch03][ex3][pts=3]") {
  ex::Dropout drop(0.5);
  drop.eval();
  const kd::Tensor x = kd::randn({50, 40});
  const kd::Tensor y = drop(x);
  REQUIRE(y.shape() == x.shape());
  CHECK(kd::equal(y, x));
  nn::Sequential model(nn::Linear(4, 4));  // eval() on a parent reaches a registered Dropout
  auto d = std::make_shared<ex::Dropout>(0.9);
  model.push_back(d);
  model.eval();
  CHECK(kd::equal(model(kd::ones({3, 4})), model[0](kd::ones({3, 4}))));
}

TEST_CASE("ch03.ex3: in train() each element is 0 or x / (1 - p), zeros with frequency p", "[ch03][ex3][pts=5]") {
  kd::manual_seed(11);
  const kd::Tensor x = kd::rand({400, 500}) + 0.5;  // no zeros in the input itself
  for (double p : {0.1, 0.5, 0.8}) {
    ex::Dropout drop(p);
    drop.train();
    const kd::Tensor y = drop(x);
    REQUIRE(y.shape() == x.shape());
    REQUIRE(y.dtype() == x.dtype());
    const kd::Tensor kept = y.ne(kd::zeros_like(y));
    // Where an element survived it must be x / (1 - p); elsewhere 0.
    const kd::Tensor expected = kd::where(kept, x * (1.0 / (1.0 - p)), kd::zeros_like(x));
    const double zeros = zero_fraction(y);
    INFO("p = " << p << ": fraction of zeros " << zeros << " (200,000 elements: expected within 0.01 of p)");
    CHECK(kd::allclose(y, expected, 1e-5, 1e-6));
    CHECK(std::abs(zeros - p) < 0.01);
    // The library's Dropout has the same statistics (and so the same expected value).
    nn::Dropout ref(p);
    CHECK(std::abs(y.mean().item<double>() - ref(x).mean().item<double>()) < 0.04);  // ~6 standard errors
  }
}

TEST_CASE("ch03.ex3: p = 0 keeps everything, p = 1 drops everything (no NaN)", "[ch03][ex3][pts=2]") {
  const kd::Tensor x = kd::randn({30, 30});
  ex::Dropout keep(0.0), drop(1.0);
  keep.train();
  drop.train();
  CHECK(kd::equal(keep(x), x));
  const kd::Tensor y = drop(x);
  INFO("Dropout(1.0) in training must give zeros, got\n" << y);
  CHECK(kd::equal(y, nn::Dropout(1.0)(x)));  // all zeros
}

TEST_CASE("ch03.ex3: a fresh mask per call, reproducible with kd::manual_seed", "[ch03][ex3][pts=2]") {
  ex::Dropout drop(0.5);
  const kd::Tensor x = kd::ones({20, 20});
  kd::manual_seed(5);
  const kd::Tensor a = drop(x), b = drop(x);
  kd::manual_seed(5);
  const kd::Tensor c = drop(x);
  CHECK_FALSE(kd::equal(a, b));
  CHECK(kd::equal(a, c));
}

TEST_CASE("ch03.ex3: the gradient flows through the same mask", "[ch03][ex3][pts=2]") {
  kd::manual_seed(6);
  const double p = 0.3;
  ex::Dropout drop(p);
  const kd::Tensor x = (kd::rand({30, 40}) + 1.0).requires_grad_();
  const kd::Tensor y = drop(x);
  y.sum().backward();
  REQUIRE(x.grad().defined());
  // d(sum y)/dx = mask / (1 - p): 1/(1-p) where the element survived, 0 where it was dropped.
  const kd::Tensor kept = y.detach().ne(kd::zeros_like(y));
  check_close(x.grad(), kd::where(kept, kd::full_like(x.detach(), 1.0 / (1.0 - p)), kd::zeros_like(x.detach())),
              "x.grad");
}

TEST_CASE("ch03.ex3: p outside [0, 1] throws ValueError", "[ch03][ex3][pts=1]") {
  CHECK_THROWS_AS(ex::Dropout(-0.1), kd::ValueError);
  CHECK_THROWS_AS(ex::Dropout(1.5), kd::ValueError);
  CHECK_THROWS_AS(ex::Dropout(std::nan("")), kd::ValueError);
  CHECK_NOTHROW(ex::Dropout(0.0));
  CHECK_NOTHROW(ex::Dropout(1.0));
}
