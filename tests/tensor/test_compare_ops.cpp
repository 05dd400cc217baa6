// Comparisons, where, allclose and equal: values against naive loops, promotion and broadcasting.
#include <catch2/catch.hpp>
#include <cmath>
#include <kindling/tensor.hpp>

#include "math_helpers.hpp"
#include "torch_oracle.hpp"

namespace kd = kindling;
using Catch::Contains;
using kd::testing::naive_binary;
using kd::testing::sample;
using kd::testing::values;

TEST_CASE("eq: all six comparisons match naive loops, with broadcasting and views") {
  const kd::Tensor a = kd::arange(12).reshape({4, 3}).t().to(kd::kFloat32);  // [3, 4] transposed
  const kd::Tensor b = (kd::arange(4) * 2).to(kd::kFloat32);               // [4]
  using F = std::function<double(double, double)>;
  const std::vector<std::tuple<kd::Tensor, F>> cases = {
      {a == b, [](double x, double y) { return double(x == y); }},
      {a != b, [](double x, double y) { return double(x != y); }},
      {a < b, [](double x, double y) { return double(x < y); }},
      {a <= b, [](double x, double y) { return double(x <= y); }},
      {a > b, [](double x, double y) { return double(x > y); }},
      {a >= b, [](double x, double y) { return double(x >= y); }},
      {a.eq(b), [](double x, double y) { return double(x == y); }},
      {a.ne(b), [](double x, double y) { return double(x != y); }},
      {a.lt(b), [](double x, double y) { return double(x < y); }},
      {a.le(b), [](double x, double y) { return double(x <= y); }},
      {a.gt(b), [](double x, double y) { return double(x > y); }},
      {a.ge(b), [](double x, double y) { return double(x >= y); }}};
  for (const auto& [r, f] : cases) {
    CHECK(r.dtype() == kd::kBool);
    CHECK(r.shape() == kd::Shape{3, 4});
    CHECK(values(r) == naive_binary(a, b, f));
  }
}

TEST_CASE("eq: comparisons with scalars promote like arithmetic") {
  const kd::Tensor i = kd::arange(5);
  // int64 < 2.5 compares in float32 (not after truncating 2.5 to 2).
  CHECK(values(i < 2.5) == std::vector<double>{1, 1, 1, 0, 0});
  CHECK(values(i == 2) == std::vector<double>{0, 0, 1, 0, 0});
  CHECK(values(i >= 3) == std::vector<double>{0, 0, 0, 1, 1});
  CHECK(values(i != 2.0) == std::vector<double>{1, 1, 0, 1, 1});
  // A scalar that does not fit a uint8 wraps around first, as in PyTorch (ask PyTorch).
  const auto expected = kd::testing::python_eval(
      {"' '.join(str(int(v)) for v in (torch.tensor([1, 2, 200], dtype=torch.uint8) < -1).tolist())"});
  const kd::Tensor u = kd::tensor({1, 2, 200}).to(kd::kUInt8);
  CHECK(kd::testing::join((u < -1).to_vector<std::int64_t>()) == expected[0]);
  // NaN compares unequal to everything.
  const kd::Tensor n = kd::tensor({NAN, 1.0f});
  CHECK(values(n == n) == std::vector<double>{0, 1});
  CHECK(values(n != n) == std::vector<double>{1, 0});
}

TEST_CASE("eq: broadcasting error names the op") {
  CHECK_THROWS_AS(kd::zeros({2, 3}) < kd::zeros({2}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::zeros({2, 3}).lt(kd::zeros({2})), Contains("lt") && Contains("[2, 3]"));
}

TEST_CASE("where: picks elementwise with broadcasting, promotion and scalars") {
  const kd::Tensor x = sample({3, 4});
  const kd::Tensor y = sample({4}) * 10;
  const kd::Tensor cond = x > 0;
  const kd::Tensor w = kd::where(cond, x, y);
  CHECK(w.shape() == kd::Shape{3, 4});
  const auto vc = values(cond), vx = values(x), vy = kd::testing::broadcast_values(y, {3, 4});
  std::vector<double> expected(vc.size());
  for (std::size_t i = 0; i < vc.size(); ++i) expected[i] = vc[i] != 0 ? vx[i] : vy[i];
  CHECK(values(w) == expected);
  // Non-contiguous condition and operands.
  const kd::Tensor wt = kd::where(cond.t(), x.t(), 0.0);
  CHECK(values(wt) == values(kd::where(cond, x, 0.0).t().contiguous()));
  // Promotion: int/float → float32; int with an int scalar stays int64; float64 wins over a 0-d float32.
  const kd::Tensor b = kd::tensor({true, false, true});
  CHECK(kd::where(b, kd::arange(3), kd::ones({3})).dtype() == kd::kFloat32);
  CHECK(kd::where(b, kd::arange(3), 2).dtype() == kd::kInt64);
  CHECK(values(kd::where(b, kd::arange(3), 7)) == std::vector<double>{0, 7, 2});
  CHECK(kd::where(b, kd::arange(3), 0.5).dtype() == kd::kFloat32);
  CHECK(values(kd::where(b, 9, kd::arange(3))) == std::vector<double>{9, 1, 9});
  CHECK(kd::where(b, kd::ones({3}, {.dtype = kd::kFloat64}), kd::full({}, 1.0)).dtype() == kd::kFloat64);
}

TEST_CASE("where: condition must be a bool tensor") {
  CHECK_THROWS_AS(kd::where(kd::ones({2}), kd::ones({2}), kd::zeros({2})), kd::DTypeError);
  CHECK_THROWS_WITH(kd::where(kd::ones({2}), kd::ones({2}), 0), Contains("where") && Contains("float32"));
  CHECK_THROWS_AS(kd::where(kd::ones({2}) > 0, kd::ones({3}), kd::zeros({2})), kd::ShapeError);
}

TEST_CASE("where: records the condition and both branches") {
  using kd::testing::ref;
  kd::testing::RecordCapture cap;
  const kd::Tensor x = kd::testing::needs_grad(sample({3}));
  const kd::Tensor c = x > 0;
  CHECK(cap.records.empty());  // comparisons are not differentiable: nothing recorded
  (void)kd::where(c, x, 0.0);
  REQUIRE(cap.records.size() == 1);
  CHECK(cap.last().op == "where");
  CHECK(cap.last().args.find(ref(c) + ", " + ref(x) + ", Tensor[]@") == 0);
}

TEST_CASE("allclose: tolerances, NaN, infinities, broadcasting, dtypes") {
  const kd::Tensor a = kd::tensor({1.0, 2.0, 3.0});
  CHECK(kd::allclose(a, a));
  CHECK(kd::allclose(a, a + 1e-9));
  CHECK_FALSE(kd::allclose(a, a + 1e-3));
  CHECK(kd::allclose(a, a + 1e-3, 1e-2));
  CHECK(kd::allclose(a, a + 0.5, 0, 0.5));
  const kd::Tensor n = kd::tensor({NAN, 1.0});
  CHECK_FALSE(kd::allclose(n, n));
  CHECK(kd::allclose(n, n, 1e-5, 1e-8, true));
  const kd::Tensor inf = kd::tensor({INFINITY, -INFINITY});
  CHECK(kd::allclose(inf, inf));
  CHECK_FALSE(kd::allclose(inf, -inf));
  CHECK(kd::allclose(kd::ones({2, 3}), kd::ones({3})));  // broadcasts like torch.allclose
  CHECK_FALSE(kd::allclose(kd::zeros({3}), kd::tensor({0.0f, 0.0f, 1.0f})));
  CHECK_THROWS_AS(kd::allclose(kd::ones({2}), kd::ones({2}, {.dtype = kd::kFloat64})), kd::DTypeError);
  CHECK_THROWS_AS(kd::allclose(kd::ones({2}), kd::ones({3})), kd::ShapeError);
  CHECK(kd::allclose(kd::arange(3), kd::arange(3)));
}

TEST_CASE("equal: same shape and same values") {
  CHECK(kd::equal(kd::arange(6).reshape({2, 3}), kd::arange(6).reshape({2, 3})));
  CHECK(kd::equal(kd::arange(6).reshape({3, 2}).t(), kd::arange(6).reshape({3, 2}).t().contiguous()));
  CHECK_FALSE(kd::equal(kd::arange(6).reshape({2, 3}), kd::arange(6).reshape({3, 2})));
  CHECK_FALSE(kd::equal(kd::ones({3}), kd::ones({1})));  // no broadcasting
  CHECK(kd::equal(kd::arange(3), kd::arange(3).to(kd::kFloat32)));  // values compare across dtypes
  CHECK_FALSE(kd::equal(kd::tensor({NAN}), kd::tensor({NAN})));
  CHECK(kd::equal(kd::zeros({0}), kd::zeros({0})));
}
