// ch02.ex1 — backward formulas of mul, div, exp, tanh, checked against the library's autograd on
// random shapes in float32 and float64.
#include "ch02_grading.hpp"

using namespace ch02_grading;

namespace {
// Random same-shape inputs; b kept away from 0 for div.
struct Inputs {
  kd::Tensor a, b, grad;
};
std::vector<Inputs> cases(kd::DType dtype, std::uint64_t seed) {
  kd::Generator gen(seed);
  std::vector<Inputs> out;
  for (int i = 0; i < 12; ++i) {
    const kd::Shape s = random_shape(gen);
    const kd::Tensor sign = kd::rand(s, {.dtype = dtype}, &gen).gt(kd::scalar_tensor(0.5)).to(dtype) * 2 - 1;  // +-1
    out.push_back({kd::randn(s, {.dtype = dtype}, &gen), (kd::rand(s, {.dtype = dtype}, &gen) + 0.5) * sign,
                   kd::randn(s, {.dtype = dtype}, &gen)});
  }
  return out;
}
}  // namespace

TEST_CASE("ch02.ex1: mul_backward matches MulBackward0", "[ch02][ex1][pts=4]") {
  for (kd::DType dt : {kd::kFloat32, kd::kFloat64}) {
    for (const auto& c : cases(dt, 11)) {
      const kd::Tensor a = leaf(c.a), b = leaf(c.b);
      const auto expected = library_grads(a * b, {a, b}, c.grad);
      const auto [ga, gb] = ex::mul_backward(c.grad, c.a, c.b);
      INFO("shape " << kd::shape_str(c.a.shape()) << ", dtype " << kd::dtype_name(dt));
      check_close(ga, expected[0], "gradient w.r.t. a");
      check_close(gb, expected[1], "gradient w.r.t. b");
    }
  }
}

TEST_CASE("ch02.ex1: div_backward matches DivBackward0", "[ch02][ex1][pts=4]") {
  for (kd::DType dt : {kd::kFloat32, kd::kFloat64}) {
    for (const auto& c : cases(dt, 12)) {
      const kd::Tensor a = leaf(c.a), b = leaf(c.b);
      const auto expected = library_grads(a / b, {a, b}, c.grad);
      const auto [ga, gb] = ex::div_backward(c.grad, c.a, c.b);
      INFO("shape " << kd::shape_str(c.a.shape()) << ", dtype " << kd::dtype_name(dt));
      check_close(ga, expected[0], "gradient w.r.t. a (the numerator)", 1e-5, 1e-5);
      check_close(gb, expected[1], "gradient w.r.t. b (the denominator)", 1e-5, 1e-5);
    }
  }
}

TEST_CASE("ch02.ex1: exp_backward matches ExpBackward0 and uses the saved result", "[ch02][ex1][pts=3]") {
  for (kd::DType dt : {kd::kFloat32, kd::kFloat64}) {
    for (const auto& c : cases(dt, 13)) {
      const kd::Tensor x = leaf(c.a);
      const kd::Tensor out = x.exp();
      const auto expected = library_grads(out, {x}, c.grad);
      INFO("shape " << kd::shape_str(c.a.shape()) << ", dtype " << kd::dtype_name(dt));
      check_close(ex::exp_backward(c.grad, out.detach()), expected[0], "gradient w.r.t. x");
    }
  }
}

TEST_CASE("ch02.ex1: tanh_backward matches TanhBackward0", "[ch02][ex1][pts=4]") {
  for (kd::DType dt : {kd::kFloat32, kd::kFloat64}) {
    for (const auto& c : cases(dt, 14)) {
      const kd::Tensor x = leaf(c.a * 2);
      const kd::Tensor out = x.tanh();
      const auto expected = library_grads(out, {x}, c.grad);
      INFO("shape " << kd::shape_str(c.a.shape()) << ", dtype " << kd::dtype_name(dt));
      check_close(ex::tanh_backward(c.grad, out.detach()), expected[0], "gradient w.r.t. x");
    }
  }
}
