// ch03.ex1 — Linear from autograd ops: registration, PyTorch's initialisation, forward and gradients
// equal to the library's.
#include "ch03_grading.hpp"

using namespace ch03_grading;

TEST_CASE("ch03.ex1: Linear registers weight [out, in] and bias [out] as parameters", "[ch03][ex1][pts=4]") {
  ex::Linear fc(7, 3);
  const Named params = fc.named_parameters();
  INFO("named_parameters(): " << list_str(names_of(params)));
  REQUIRE(names_of(params) == names_of(nn::Linear(7, 3).named_parameters()));  // {"weight", "bias"}
  CHECK(fc.weight.shape() == kd::Shape{3, 7});
  CHECK(fc.bias.shape() == kd::Shape{3});
  CHECK(params[0].second.is_same(fc.weight));  // the member *is* the registered tensor
  CHECK(params[1].second.is_same(fc.bias));
  CHECK(fc.weight.requires_grad());
  CHECK(fc.bias.requires_grad());
  CHECK(fc.in_features == 7);
  CHECK(fc.out_features == 3);

  ex::Linear no_bias(7, 3, /*bias=*/false);
  INFO("with bias=false: " << list_str(names_of(no_bias.named_parameters())));
  CHECK(names_of(no_bias.named_parameters()) == names_of(nn::Linear(7, 3, {.bias = false}).named_parameters()));
  CHECK_FALSE(no_bias.bias.defined());
}

TEST_CASE("ch03.ex1: initial values are U(-1/sqrt(in), 1/sqrt(in)) like PyTorch's", "[ch03][ex1][pts=5]") {
  for (auto [in, out] : std::vector<std::pair<int, int>>{{300, 200}, {16, 2000}, {1000, 64}}) {
    kd::manual_seed(1234);
    ex::Linear fc(in, out);
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    const Stats w = stats_of(fc.weight), b = stats_of(fc.bias);
    INFO("Linear(" << in << ", " << out << "): bound 1/sqrt(in) = " << bound << "; weight min " << w.min << " max "
                   << w.max << " mean " << w.mean << " std " << w.std << " (uniform: bound/sqrt(3) = "
                   << bound / std::sqrt(3.0) << "); bias min " << b.min << " max " << b.max);
    CHECK(w.min >= -bound);
    CHECK(w.max <= bound);
    CHECK(w.min < -0.98 * bound);  // the whole interval is used ...
    CHECK(w.max > 0.98 * bound);
    CHECK(std::abs(w.mean) < 0.03 * bound);                                // ... evenly
    CHECK(std::abs(w.std - bound / std::sqrt(3.0)) < 0.03 * bound);
    CHECK(b.min >= -bound);
    CHECK(b.max <= bound);
    CHECK(b.max - b.min > 1.5 * bound);  // the bias is random too, not a constant
  }
}

TEST_CASE("ch03.ex1: initialisation uses the global generator (kd::manual_seed)", "[ch03][ex1][pts=2]") {
  kd::manual_seed(7);
  ex::Linear a(20, 10);
  kd::manual_seed(7);
  ex::Linear b(20, 10);
  kd::manual_seed(8);
  ex::Linear c(20, 10);
  CHECK(kd::equal(a.weight, b.weight));  // same seed, same values
  CHECK(kd::equal(a.bias, b.bias));
  CHECK_FALSE(kd::equal(a.weight, c.weight));
  const kd::Tensor before = a.weight.detach().clone();
  a.reset_parameters();  // draws again
  CHECK_FALSE(kd::equal(a.weight, before));
}

TEST_CASE("ch03.ex1: forward equals functional::linear for [N, in], [in] and [2, 3, in] inputs", "[ch03][ex1][pts=4]") {
  kd::manual_seed(3);
  ex::Linear fc(5, 4);
  ex::Linear no_bias(5, 4, false);
  for (const kd::Shape& shape : std::vector<kd::Shape>{{8, 5}, {5}, {2, 3, 5}}) {
    const kd::Tensor x = kd::randn(shape);
    INFO("input " << kd::shape_str(shape));
    check_close(fc(x), F::linear(x, fc.weight, fc.bias), "with bias");
    check_close(no_bias(x), F::linear(x, no_bias.weight), "without bias");
  }
}

TEST_CASE("ch03.ex1: gradients of x, weight and bias equal the library's", "[ch03][ex1][pts=5]") {
  kd::manual_seed(4);
  ex::Linear fc(6, 3);
  const kd::Tensor x = kd::randn({10, 6}).requires_grad_();
  const kd::Tensor g = kd::randn({10, 3});  // an arbitrary upstream gradient
  (fc(x) * g).sum().backward();

  const kd::Tensor x2 = leaf_copy(x), w2 = leaf_copy(fc.weight), b2 = leaf_copy(fc.bias);
  (F::linear(x2, w2, b2) * g).sum().backward();
  INFO("backward through your forward must reach every leaf (use tensor ops, keep the graph)");
  check_close(fc.weight.grad(), w2.grad(), "weight.grad");
  check_close(fc.bias.grad(), b2.grad(), "bias.grad");
  check_close(x.grad(), x2.grad(), "x.grad");
}
