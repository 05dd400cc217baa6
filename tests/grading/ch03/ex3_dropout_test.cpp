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
  // The outputs are reported as they are; the grader checks each element against the twin's input and
  // counts the zeros, outside this process.
  kd::manual_seed(3);
  const kd::Tensor x = grading::input("x");  // [200, 100], positive
  for (double p : {0.1, 0.5, 0.8}) {
    std::ostringstream what;
    what << "p = " << p << ": dropout(x, p)";
    grading::expect(what.str(), F::dropout(x, p, true));
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
  // The output and the gradient are reported; the grader checks outside this process that the gradient
  // is 1 / (1 - p) exactly where the output kept its element.
  kd::manual_seed(5);
  kd::Tensor x = grading::input("x");  // [30, 20], no zeros
  x.requires_grad_(true);
  const kd::Tensor y = F::dropout(x, 0.4, true);
  y.sum().backward();
  grading::expect("dropout(x, 0.4)", y.detach());
  grading::expect("x.grad", x.grad());
}

TEST_CASE("dropout: shapes, dtypes, views, and p outside [0, 1]", "[ch03][ex3][pts=1]") {
  const kd::Tensor x = grading::input("x");
  const kd::Tensor y = F::dropout(x.t(), 0.5, true);
  grading::expect("shape of dropout(x.t())", y.shape());
  grading::expect("dtype of dropout(x.t())", std::string(kd::dtype_name(y.dtype())));
  grading::expect_error("dropout(x, -0.1)", [&] { (void)F::dropout(x, -0.1, true); });
  grading::expect_error("dropout(x, 1.5)", [&] { (void)F::dropout(x, 1.5, true); });
}
