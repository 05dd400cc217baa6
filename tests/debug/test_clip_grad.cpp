// clip_grad_norm_ / clip_grad_value_: the refusals and the NaN behaviour (values against PyTorch
// are in tests/parity/ch07_debug).
#include <catch2/catch.hpp>
#include <kindling/kindling.hpp>

#include <cmath>

namespace kd = kindling;
using kd::Tensor;
namespace utils = kd::nn::utils;

TEST_CASE("clip_grad: parameters without a gradient are skipped; none at all gives 0") {
  Tensor a = kd::ones({2}).requires_grad_();
  CHECK(utils::clip_grad_norm_({a}, 1.0).item<float>() == 0.f);
  Tensor b = kd::ones({2}).requires_grad_();
  (b * 3.0).sum().backward();  // grad = [3, 3], norm 4.2426
  const Tensor total = utils::clip_grad_norm_({a, b}, 1.0);
  CHECK(total.item<float>() == Approx(std::sqrt(18.0)));
  CHECK((b.grad() * b.grad()).sum().sqrt().item<float>() == Approx(1.0).epsilon(1e-5));
  CHECK_FALSE(a.grad().defined());
}

TEST_CASE("clip_grad: a non-finite norm throws with error_if_nonfinite, else spreads NaN") {
  Tensor w = kd::tensor({0.0, 1.0}).requires_grad_();
  w.log().sum().backward();  // grad = [inf, 1]
  CHECK_THROWS_AS(utils::clip_grad_norm_({w}, 1.0, 2.0, true), kd::ValueError);
  const Tensor total = utils::clip_grad_norm_({w}, 1.0);
  CHECK(std::isinf(total.item<float>()));
  // the coefficient is 1 / inf = 0: inf * 0 = NaN, 1 * 0 = 0
  CHECK(std::isnan(w.grad().to_vector<float>()[0]));
  CHECK(w.grad().to_vector<float>()[1] == 0.f);
}

TEST_CASE("clip_grad: refusals name the problem") {
  Tensor w = kd::ones({2}).requires_grad_();
  (w * 2.0).sum().backward();
  CHECK_THROWS_AS(utils::clip_grad_norm_({w}, 1.0, 0.0), kd::ValueError);
  CHECK_THROWS_AS(utils::clip_grad_norm_({w}, 1.0, -2.0), kd::ValueError);
  CHECK_THROWS_AS(utils::clip_grad_norm_({w}, std::nan("")), kd::ValueError);
  CHECK_THROWS_AS(utils::clip_grad_value_({w}, std::nan("")), kd::ValueError);
  CHECK_THROWS_AS(utils::clip_grad_norm_({Tensor()}, 1.0), kd::ValueError);
}

TEST_CASE("clip_grad: clip_grad_value_ clamps in place") {
  Tensor w = kd::tensor({1.0, -2.0, 3.0}).requires_grad_();
  (w * w).sum().backward();  // [2, -4, 6]
  utils::clip_grad_value_({w}, 3.0);
  CHECK(w.grad().to_vector<float>() == std::vector<float>{2.f, -3.f, 3.f});
}
