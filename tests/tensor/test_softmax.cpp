// softmax / log_softmax: against a naive float64 formula along every dim, stability, dtypes.
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
/// Naive softmax (or log_softmax) of a 3-D tensor along `dim`, in float64, row-major output.
std::vector<double> naive_softmax3(const kd::Tensor& x, int dim, bool log) {
  const auto v = values(x);
  const auto S = x.shape();
  auto at = [&](std::int64_t a, std::int64_t b, std::int64_t c) { return (a * S[1] + b) * S[2] + c; };
  std::vector<double> out(v.size());
  for (std::int64_t a = 0; a < S[0]; ++a)
    for (std::int64_t b = 0; b < S[1]; ++b)
      for (std::int64_t c = 0; c < S[2]; ++c) {
        double denom = 0;
        for (std::int64_t r = 0; r < S[dim]; ++r) {
          std::int64_t i[3] = {a, b, c};
          i[dim] = r;
          denom += std::exp(v[at(i[0], i[1], i[2])]);
        }
        const double e = v[at(a, b, c)];
        out[at(a, b, c)] = log ? e - std::log(denom) : std::exp(e) / denom;
      }
  return out;
}
}  // namespace

TEST_CASE("softmax: matches the naive formula along every dim, for contiguous and permuted inputs") {
  for (const kd::Tensor& x : {sample({2, 3, 4}), sample({4, 2, 3}).permute({1, 2, 0})}) {
    for (int d = 0; d < 3; ++d) {
      INFO("dim " << d);
      CHECK(close(values(x.softmax(d)), naive_softmax3(x, d, false), 1e-5, 1e-7));
      CHECK(close(values(kd::log_softmax(x, d - 3)), naive_softmax3(x, d, true), 1e-5, 1e-6));
      CHECK(x.softmax(d).shape() == x.shape());
    }
  }
  const kd::Tensor x64 = sample({3, 5}, kd::kFloat64);
  CHECK(kd::softmax(x64, 1).dtype() == kd::kFloat64);
  CHECK(close(values(kd::softmax(x64.unsqueeze(0), 2)), naive_softmax3(x64.unsqueeze(0), 2, false), 1e-12, 1e-15));
}

TEST_CASE("softmax: rows sum to 1 and huge logits do not overflow") {
  const kd::Tensor x = sample({4, 10}) * 1000;  // exp(3000) would be inf
  const kd::Tensor p = x.softmax(1);
  for (double v : values(p)) CHECK(std::isfinite(v));
  for (double s : values(p.sum(1))) CHECK(s == Approx(1.0).epsilon(1e-5));
  // log_softmax stays finite where softmax underflows to exactly 0.
  const kd::Tensor l = x.log_softmax(1);
  bool some_zero = false;
  for (double v : values(p)) some_zero |= v == 0.0;
  CHECK(some_zero);
  for (double v : values(l)) CHECK(std::isfinite(v));
  const kd::Tensor big = kd::tensor({{1000.0f, 0.0f}});
  CHECK(values(big.log_softmax(1)) == std::vector<double>{0.0, -1000.0});
}

TEST_CASE("softmax: dtypes, 0-d and empty tensors") {
  CHECK_THROWS_AS(kd::arange(3).softmax(0), kd::DTypeError);
  CHECK_THROWS_WITH(kd::softmax(kd::arange(3), 0), Contains("softmax") && Contains("int64"));
  CHECK_THROWS_AS(kd::zeros({2, 3}).softmax(2), kd::IndexError);
  CHECK(kd::full({}, 2.0).softmax(0).item<double>() == 1.0);
  CHECK(kd::full({}, 2.0).log_softmax(0).item<double>() == 0.0);
  CHECK(kd::zeros({0, 3}).softmax(1).shape() == kd::Shape{0, 3});
}

TEST_CASE("softmax: records op and normalised dim") {
  using kd::testing::ref;
  kd::testing::RecordCapture cap;
  const kd::Tensor x = kd::testing::needs_grad(sample({2, 3}));
  (void)x.softmax(-1);
  CHECK(cap.last().op == "softmax");
  CHECK(cap.last().args == ref(x) + ", 1");
  (void)kd::log_softmax(x, 0);
  CHECK(cap.last().op == "log_softmax");
  CHECK(cap.last().args == ref(x) + ", 0");
}
