// Unary elementwise ops: values against std:: functions on non-contiguous inputs, dtype rules,
// sigmoid's stability, clamp's semantics and error messages.
#include <catch2/catch.hpp>
#include <cmath>
#include <kindling/tensor.hpp>

#include "math_helpers.hpp"

namespace kd = kindling;
using Catch::Contains;
using kd::testing::close;
using kd::testing::sample;
using kd::testing::values;

namespace {
std::vector<double> naive(const kd::Tensor& x, double (*f)(double)) {
  auto v = values(x);
  for (auto& e : v) e = f(e);
  return v;
}
}  // namespace

TEST_CASE("unary ops: values match std:: functions on a transposed input") {
  const kd::Tensor x = sample({4, 5}).t();  // [5, 4], non-contiguous
  const kd::Tensor p = x.abs() + 0.25;      // positive, for log and sqrt
  CHECK(close(values(x.neg()), naive(x, [](double v) { return -v; })));
  CHECK(close(values(-x), naive(x, [](double v) { return -v; })));
  CHECK(close(values(x.abs()), naive(x, [](double v) { return std::abs(v); })));
  CHECK(close(values(x.exp()), naive(x, [](double v) { return std::exp(v); })));
  CHECK(close(values(p.log()), naive(p, [](double v) { return std::log(v); })));
  CHECK(close(values(p.sqrt()), naive(p, [](double v) { return std::sqrt(v); })));
  CHECK(close(values(x.tanh()), naive(x, [](double v) { return std::tanh(v); })));
  CHECK(close(values(x.sigmoid()), naive(x, [](double v) { return 1 / (1 + std::exp(-v)); })));
  CHECK(close(values(x.relu()), naive(x, [](double v) { return v < 0 ? 0.0 : v; })));
  CHECK(kd::exp(x).shape() == kd::Shape{5, 4});
  CHECK(kd::exp(x).is_contiguous());
}

TEST_CASE("unary ops: float64 stays float64 with full precision") {
  const kd::Tensor x = sample({7}, kd::kFloat64);
  CHECK(kd::exp(x).dtype() == kd::kFloat64);
  CHECK(values(kd::exp(x)) == naive(x, [](double v) { return std::exp(v); }));
  CHECK(values(kd::tanh(x)) == naive(x, [](double v) { return std::tanh(v); }));
}

TEST_CASE("unary ops: dtype rules (integers → float32 for exp/log/sqrt/tanh/sigmoid)") {
  const kd::Tensor i = kd::arange(-3, 4);
  for (auto* f : {&kd::exp, &kd::log, &kd::sqrt, &kd::tanh, &kd::sigmoid}) CHECK(f(i).dtype() == kd::kFloat32);
  CHECK(close(values(kd::exp(i)), naive(i, [](double v) { return static_cast<double>(std::exp(float(v))); })));
  CHECK(kd::exp(kd::tensor({true, false})).dtype() == kd::kFloat32);
  CHECK(kd::neg(i).dtype() == kd::kInt64);
  CHECK(values(kd::neg(i)) == naive(i, [](double v) { return -v; }));
  CHECK(values(kd::abs(i)) == naive(i, [](double v) { return std::abs(v); }));
  CHECK(kd::relu(i).dtype() == kd::kInt64);
  CHECK(values(kd::relu(i)) == naive(i, [](double v) { return v < 0 ? 0.0 : v; }));
  const kd::Tensor u = kd::arange(1, 4).to(kd::kUInt8);
  CHECK(values(-u) == std::vector<double>{255, 254, 253});  // wraps like PyTorch's uint8
}

TEST_CASE("unary ops: bool inputs are refused where PyTorch refuses them") {
  const kd::Tensor b = kd::tensor({true, false});
  CHECK_THROWS_AS(-b, kd::DTypeError);
  CHECK_THROWS_WITH(kd::neg(b), Contains("neg") && Contains("bool"));
  CHECK_THROWS_AS(kd::abs(b), kd::DTypeError);
  CHECK_THROWS_AS(kd::relu(b), kd::DTypeError);
}

TEST_CASE("sigmoid: stable for large |x| (no NaN, no overflow)") {
  const kd::Tensor x = kd::tensor({-1000.0f, -100.0f, -20.0f, 0.0f, 20.0f, 100.0f, 1000.0f});
  const auto s = values(x.sigmoid());
  for (double v : s) {
    CHECK(std::isfinite(v));
    CHECK(v >= 0.0);
    CHECK(v <= 1.0);
  }
  CHECK(s[3] == 0.5);
  CHECK(s[6] == 1.0);
  CHECK(s[0] == 0.0);
  // Small but representable values are kept instead of flushing to 0 through exp overflow.
  CHECK(s[2] == Approx(1 / (1 + std::exp(20.0))).epsilon(1e-5));
  const auto l = values(x.exp());
  CHECK(std::isinf(l[6]));  // plain exp does overflow: that is what sigmoid avoids
}

TEST_CASE("unary ops: NaN passes through relu, abs and clamp") {
  const kd::Tensor x = kd::tensor({NAN, -1.0f, 2.0f});
  CHECK(std::isnan(values(x.relu())[0]));
  CHECK(std::isnan(values(x.abs())[0]));
  CHECK(std::isnan(values(x.clamp(0, 1))[0]));
  CHECK(std::isnan(values(x.sigmoid())[0]));
}

TEST_CASE("clamp: bounds, one-sided forms, min > max and dtypes") {
  const kd::Tensor x = sample({3, 4}).t();
  CHECK(close(values(x.clamp(-1, 1)), naive(x, [](double v) { return std::min(std::max(v, -1.0), 1.0); })));
  CHECK(close(values(x.clamp(0.5)), naive(x, [](double v) { return std::max(v, 0.5); })));
  CHECK(close(values(x.clamp(std::nullopt, 0.5)), naive(x, [](double v) { return std::min(v, 0.5); })));
  CHECK(close(values(kd::clamp(x, 2, 1)), naive(x, [](double) { return 1.0; })));  // min > max → max
  const kd::Tensor i = kd::arange(-3, 4);
  CHECK(i.clamp(0, 2).dtype() == kd::kInt64);
  CHECK(values(i.clamp(0, 2)) == std::vector<double>{0, 0, 0, 0, 1, 2, 2});
  CHECK(i.clamp(0.5).dtype() == kd::kFloat32);  // a float bound lifts an integer tensor, as in PyTorch
  CHECK(kd::tensor({true, false}).clamp(0, 1).dtype() == kd::kInt64);
  CHECK_THROWS_AS(x.clamp(std::nullopt, std::nullopt), kd::ValueError);
  CHECK_THROWS_WITH(x.clamp(std::nullopt), Contains("clamp") && Contains("min") && Contains("max"));
}

TEST_CASE("clamp_: in place, version bump, and can-cast rule") {
  kd::Tensor x = sample({2, 3});
  const kd::Tensor expected = x.clamp(-0.5, 0.5);
  const auto v = x.version();
  const void* p = x.raw_data_ptr();
  x.clamp_(-0.5, 0.5);
  CHECK(x.raw_data_ptr() == p);
  CHECK(x.version() > v);
  CHECK(values(x) == values(expected));
  kd::Tensor i = kd::arange(5);
  CHECK_THROWS_AS(i.clamp_(0.5), kd::DTypeError);
  CHECK_THROWS_WITH(i.clamp_(0.5), Contains("can't be cast"));
  i.clamp_(1, 3);
  CHECK(values(i) == std::vector<double>{1, 1, 2, 3, 3});
  kd::Tensor w = kd::testing::needs_grad(kd::zeros({2}));
  CHECK_THROWS_AS(w.clamp_(0), kd::AutogradError);
}

TEST_CASE("unary ops: empty and 0-d tensors") {
  CHECK(kd::exp(kd::zeros({0, 3})).shape() == kd::Shape{0, 3});
  const kd::Tensor s = kd::full({}, -2.0);
  CHECK(s.relu().dim() == 0);
  CHECK(s.relu().item<double>() == 0.0);
  CHECK(s.abs().item<double>() == 2.0);
}

TEST_CASE("unary ops: record the op keys of the autograd table") {
  kd::testing::RecordCapture cap;
  const kd::Tensor x = kd::testing::needs_grad(sample({3}));
  const std::vector<std::pair<std::string, kd::Tensor (*)(const kd::Tensor&)>> ops = {
      {"neg", &kd::neg},   {"abs", &kd::abs},   {"exp", &kd::exp},         {"log", &kd::log},
      {"sqrt", &kd::sqrt}, {"tanh", &kd::tanh}, {"sigmoid", &kd::sigmoid}, {"relu", &kd::relu}};
  for (const auto& [name, f] : ops) {
    (void)f(x);
    CHECK(cap.last().op == name);
    CHECK(cap.last().args == kd::testing::ref(x));
  }
  (void)x.clamp(std::nullopt, 2);
  CHECK(cap.last().op == "clamp");
  CHECK(cap.last().args == kd::testing::ref(x) + ", None, 2");
}
