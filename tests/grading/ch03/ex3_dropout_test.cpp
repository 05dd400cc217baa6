// ch03.ex3 — nn::functional::dropout (and nn::Dropout, which calls it).
#include "ch03_grading.hpp"

using namespace ch03_grading;
namespace F = kindling::nn::functional;

TEST_CASE("dropout: the identity in eval() and for p = 0", "[ch03][ex3][pts=3]") {
  const kd::Tensor x = grading::input("x"), y = grading::input("y");
  grading::expect("dropout(x, 0.5, training=false)", F::dropout(x, 0.5, false));
  nn::Dropout d(0.3);
  d.eval();
  grading::expect("Dropout(0.3) in eval()", d(x));
  grading::expect("dropout(x, 0.0, training=true)", F::dropout(x, 0.0, true));
  grading::expect("dropout(y, 0.5, training=false)", F::dropout(y, 0.5, false));
}

TEST_CASE("dropout: each element 0 or x / (1 - p), zeros with frequency p", "[ch03][ex3][pts=5]") {
  kd::manual_seed(3);
  const kd::Tensor x = kd::ones({200, 100});
  for (double p : {0.1, 0.5, 0.8}) {
    const kd::Tensor y = F::dropout(x, p, true);
    const double scale = 1.0 / (1.0 - p);
    const kd::Tensor zero = y == 0.0, kept = kd::abs(y - scale) < 1e-5;
    const double frac = zero.to(kd::kFloat64).mean().item<double>(), mean = y.mean().item<double>();
    std::ostringstream what;
    what << "p = " << p << ": ";
    INFO(what.str() << "fraction of zeros " << frac << ", mean " << mean);
    grading::expect(what.str() + "every element 0 or 1/(1-p)", (zero.to(kd::kInt64) + kept.to(kd::kInt64)).min().item<std::int64_t>() == 1);
    grading::expect(what.str() + "zeros within 0.012 of p", std::abs(frac - p) < 0.012);
    grading::expect(what.str() + "mean within 0.05 of 1", std::abs(mean - 1.0) < 0.05);
  }
}

TEST_CASE("dropout: p = 1 drops everything, without NaN", "[ch03][ex3][pts=2]") {
  grading::expect("dropout(x, 1.0)", F::dropout(grading::input("x"), 1.0, true));
}

TEST_CASE("dropout: a new mask each call, the same one from the same seed", "[ch03][ex3][pts=2]") {
  const kd::Tensor x = kd::ones({50, 50});
  kd::manual_seed(11);
  const kd::Tensor a = F::dropout(x, 0.5, true), b = F::dropout(x, 0.5, true);
  kd::manual_seed(11);
  const kd::Tensor c = F::dropout(x, 0.5, true);
  grading::expect("two calls: different masks", !kd::equal(a, b));
  grading::expect("same seed: same mask", kd::equal(a, c));
}

TEST_CASE("dropout: the gradient goes through the same mask", "[ch03][ex3][pts=2]") {
  kd::manual_seed(5);
  kd::Tensor x = kd::rand({30, 20}) + 0.5;  // no zeros in x
  x.requires_grad_(true);
  const kd::Tensor y = F::dropout(x, 0.4, true);
  y.sum().backward();
  const kd::Tensor mask = (y.detach() != 0.0).to(kd::kFloat32) / 0.6;
  grading::expect("grad == mask / (1 - p)", kd::allclose(x.grad(), mask, 1e-5, 1e-6));
}

TEST_CASE("dropout: shapes, dtypes, views, and p outside [0, 1]", "[ch03][ex3][pts=1]") {
  const kd::Tensor x = grading::input("x");
  const kd::Tensor y = F::dropout(x.t(), 0.5, true);
  grading::expect("shape of dropout(x.t())", y.shape());
  grading::expect("dtype of dropout(x.t())", std::string(kd::dtype_name(y.dtype())));
  grading::expect_error("dropout(x, -0.1)", [&] { (void)F::dropout(x, -0.1, true); });
  grading::expect_error("dropout(x, 1.5)", [&] { (void)F::dropout(x, 1.5, true); });
}
