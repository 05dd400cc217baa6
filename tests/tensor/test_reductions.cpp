// Reductions: sum/mean over dim lists (keepdim), max/min/argmax/argmin, var/std — against naive
// loops over to_vector(), on contiguous and non-contiguous inputs; dtype, empty and error rules.
#include <catch2/catch.hpp>
#include <cmath>
#include <kindling/tensor.hpp>
#include <limits>

#include "math_helpers.hpp"

namespace kd = kindling;
using Catch::Contains;
using kd::testing::close;
using kd::testing::sample;
using kd::testing::values;

namespace {
/// Naive reduction of a 3-D tensor over the dims in `mask`: out[i, j, k] (keepdim layout) collects
/// f over the reduced positions. Returns the row-major values of the keepdim result.
std::vector<double> naive_reduce3(const kd::Tensor& x, std::array<bool, 3> mask,
                                  const std::function<double(const std::vector<double>&)>& f) {
  const auto v = values(x);
  const auto S = x.shape();
  const std::int64_t o0 = mask[0] ? 1 : S[0], o1 = mask[1] ? 1 : S[1], o2 = mask[2] ? 1 : S[2];
  std::vector<double> out;
  for (std::int64_t i = 0; i < o0; ++i)
    for (std::int64_t j = 0; j < o1; ++j)
      for (std::int64_t k = 0; k < o2; ++k) {
        std::vector<double> group;
        for (std::int64_t a = 0; a < S[0]; ++a)
          for (std::int64_t b = 0; b < S[1]; ++b)
            for (std::int64_t c = 0; c < S[2]; ++c)
              if ((mask[0] || a == i) && (mask[1] || b == j) && (mask[2] || c == k))
                group.push_back(v[(a * S[1] + b) * S[2] + c]);
        out.push_back(f(group));
      }
  return out;
}

double vsum(const std::vector<double>& g) {
  double s = 0;
  for (double v : g) s += v;
  return s;
}
double vmean(const std::vector<double>& g) { return vsum(g) / static_cast<double>(g.size()); }
double vvar(const std::vector<double>& g, int correction) {
  const double m = vmean(g);
  double ss = 0;
  for (double v : g) ss += (v - m) * (v - m);
  return ss / std::max(0.0, static_cast<double>(g.size()) - correction);
}
}  // namespace

TEST_CASE("sum: every dim subset, keepdim or not, contiguous and permuted inputs") {
  const kd::Tensor base = sample({2, 3, 4});
  const std::vector<kd::Tensor> inputs = {base, sample({4, 2, 3}).permute({1, 2, 0}),
                                          sample({2, 6, 4}).slice(1, 0, 6, 2)};
  for (const auto& x : inputs) {
    for (int m = 1; m < 8; ++m) {
      std::array<bool, 3> mask{bool(m & 1), bool(m & 2), bool(m & 4)};
      std::vector<std::int64_t> dims;
      for (int d = 0; d < 3; ++d)
        if (mask[d]) dims.push_back(d - (d == 2 ? 3 : 0));  // mix in a negative dim
      INFO("dims mask " << m << ", input strides " << kd::shape_str(x.strides()));
      const kd::Tensor k = x.sum(dims, true), s = x.sum(dims);
      CHECK(k.dim() == 3);
      CHECK(s.dim() == 3 - static_cast<std::int64_t>(dims.size()));
      CHECK(close(values(k), naive_reduce3(x, mask, vsum), 1e-6, 1e-6));
      CHECK(values(s) == values(k));
      CHECK(close(values(x.mean(dims, true)), naive_reduce3(x, mask, vmean), 1e-6, 1e-6));
    }
    CHECK(x.sum().dim() == 0);
    CHECK(x.sum().item<double>() == Approx(vsum(values(x))).epsilon(1e-6));
    CHECK(x.sum(std::vector<std::int64_t>{}).item<double>() == x.sum().item<double>());  // [] = all dims
    CHECK(close(values(x.sum(1)), values(x.sum({1}))));
  }
}

TEST_CASE("sum: float32 accumulates accurately over long rows and columns") {
  // 1M values whose naive float32 running sum drifts visibly; compare with a float64 sum.
  const std::int64_t n = 1 << 20;
  const kd::Tensor x = kd::full({n}, 0.1f) + kd::arange(n).to(kd::kFloat32) * 1e-7f;
  const auto v = values(x);
  double exact = 0;
  for (double e : v) exact += e;
  CHECK(std::abs(x.sum().item<double>() - exact) <= 1e-6 * exact);
  float naive = 0;
  for (double e : v) naive += static_cast<float>(e);
  CHECK(std::abs(double(naive) - exact) > 1e-5 * exact);  // the test would catch a naive float loop
  const kd::Tensor m = x.view({1024, 1024});
  const auto cols = values(m.sum(0)), rows = values(m.sum(1));
  const auto cols_ref = naive_reduce3(m.unsqueeze(0), {false, true, false}, vsum);
  const auto rows_ref = naive_reduce3(m.unsqueeze(0), {false, false, true}, vsum);
  CHECK(close(cols, cols_ref, 1e-6, 0));
  CHECK(close(rows, rows_ref, 1e-6, 0));
}

TEST_CASE("sum: integer and bool inputs sum to int64") {
  const kd::Tensor b = kd::arange(10) > 3;
  CHECK(b.sum().dtype() == kd::kInt64);
  CHECK(b.sum().item<std::int64_t>() == 6);
  const kd::Tensor u = kd::full({300}, 200, {.dtype = kd::kUInt8});
  CHECK(u.sum().dtype() == kd::kInt64);
  CHECK(u.sum().item<std::int64_t>() == 60000);  // no uint8 overflow
  const kd::Tensor i = kd::arange(12).reshape({3, 4});
  CHECK(values(i.sum(0)) == naive_reduce3(i.unsqueeze(0), {false, true, false}, vsum));
  CHECK(i.sum(1, true).shape() == kd::Shape{3, 1});
  CHECK(kd::full({}, 5, {.dtype = kd::kInt64}).sum().item<std::int64_t>() == 5);
}

TEST_CASE("sum: empty tensors and 0-d tensors") {
  CHECK(kd::zeros({0, 3}).sum().item<double>() == 0.0);
  CHECK(values(kd::zeros({0, 3}).sum(0)) == std::vector<double>{0, 0, 0});
  CHECK(kd::zeros({0, 3}).sum(1).shape() == kd::Shape{0});
  CHECK(std::isnan(kd::zeros({0}).mean().item<double>()));
  const kd::Tensor s = kd::full({}, 3.0);
  CHECK(s.sum(0).dim() == 0);
  CHECK(s.sum(-1, true).item<double>() == 3.0);
  CHECK(s.mean().item<double>() == 3.0);
}

TEST_CASE("sum: bad dims are reported") {
  const kd::Tensor x = kd::zeros({2, 3});
  CHECK_THROWS_AS(x.sum(2), kd::IndexError);
  CHECK_THROWS_AS(x.sum({0, -2}), kd::ValueError);
  CHECK_THROWS_WITH(x.sum({0, 0}), Contains("sum") && Contains("multiple times"));
}

TEST_CASE("mean: needs a floating tensor") {
  CHECK_THROWS_AS(kd::arange(3).mean(), kd::DTypeError);
  CHECK_THROWS_WITH(kd::arange(3).mean(), Contains("mean") && Contains("int64") && Contains("kFloat32"));
  CHECK(kd::arange(3).to(kd::kFloat64).mean().dtype() == kd::kFloat64);
}

TEST_CASE("max: whole tensor, along a dim with indices, ties and NaN") {
  const kd::Tensor x = sample({3, 5}).t();  // [5, 3] transposed
  const auto v = values(x);
  CHECK(x.max().item<double>() == *std::max_element(v.begin(), v.end()));
  CHECK(x.min().item<double>() == *std::min_element(v.begin(), v.end()));
  CHECK(x.max().dim() == 0);
  for (std::int64_t dim : {0, 1, -1}) {
    auto [vals, idx] = x.max(dim);
    auto [mvals, midx] = x.min(dim, true);
    CHECK(idx.dtype() == kd::kInt64);
    CHECK(midx.dim() == 2);
    const std::int64_t d = dim < 0 ? dim + 2 : dim;
    const auto vv = values(vals), iv = values(idx), mv = values(mvals), mi = values(midx);
    const std::int64_t other = x.size(1 - d);
    for (std::int64_t o = 0; o < other; ++o) {
      double best = -1e300, worst = 1e300;
      std::int64_t bi = -1, wi = -1;
      for (std::int64_t r = 0; r < x.size(d); ++r) {
        const double e = d == 0 ? v[r * 3 + o] : v[o * 3 + r];
        if (e > best) best = e, bi = r;
        if (e < worst) worst = e, wi = r;
      }
      CHECK(vv[o] == best);
      CHECK(iv[o] == bi);
      CHECK(mv[o] == worst);
      CHECK(mi[o] == wi);
    }
    CHECK(values(x.argmax(dim)) == iv);
    CHECK(values(x.argmin(dim, true)) == mi);
  }
  // Ties: the first occurrence wins, as in PyTorch.
  const kd::Tensor t = kd::tensor({{1, 5, 5}, {7, 7, 2}});
  CHECK(values(t.max(1).second) == std::vector<double>{1, 0});
  CHECK(values(t.min(0).second) == std::vector<double>{0, 0, 1});
  CHECK(t.argmax().item<std::int64_t>() == 3);
  CHECK(t.argmin().item<std::int64_t>() == 0);
  CHECK(t.max().dtype() == kd::kInt64);
  // NaN wins (the first one), as in torch.max.
  const kd::Tensor n = kd::tensor({1.0f, NAN, 3.0f, NAN});
  CHECK(std::isnan(n.max().item<double>()));
  CHECK(std::isnan(n.min().item<double>()));
  CHECK(n.max(0).second.item<std::int64_t>() == 1);
  CHECK(n.argmin().item<std::int64_t>() == 1);
}

TEST_CASE("max: empty inputs and 0-d inputs") {
  CHECK_THROWS_AS(kd::zeros({0}).max(), kd::ValueError);
  CHECK_THROWS_WITH(kd::zeros({0, 3}).min(), Contains("min") && Contains("[0, 3]"));
  CHECK_THROWS_AS(kd::zeros({0, 3}).argmax(), kd::ValueError);
  CHECK_THROWS_AS(kd::zeros({0, 3}).max(0), kd::IndexError);
  auto [v, i] = kd::zeros({0, 3}).max(1);  // reducing a non-empty dim of an empty tensor is fine
  CHECK(v.shape() == kd::Shape{0});
  CHECK(i.shape() == kd::Shape{0});
  const kd::Tensor s = kd::full({}, 4.0);
  auto [sv, si] = s.max(0);
  CHECK(sv.item<double>() == 4.0);
  CHECK(si.item<std::int64_t>() == 0);
  CHECK(s.argmax().item<std::int64_t>() == 0);
}

TEST_CASE("argmax/argmin: bool tensors are refused, as in PyTorch (issue 18)") {
  const kd::Tensor m = kd::tensor({false, true, true});
  CHECK_THROWS_AS(m.argmax(), kd::DTypeError);
  CHECK_THROWS_WITH(m.argmin(0), Contains("argmin") && Contains("bool"));
  CHECK(m.to(kd::kUInt8).argmax().item<std::int64_t>() == 1);
  CHECK(m.max().item<bool>());  // max/min of bool are fine
}

TEST_CASE("var: correction, dims, keepdim, against a two-pass naive formula") {
  const kd::Tensor x = sample({3, 4, 5}).permute({2, 0, 1});  // [5, 3, 4], non-contiguous
  for (int correction : {0, 1, 2}) {
    INFO("correction " << correction);
    auto f = [correction](const std::vector<double>& g) { return vvar(g, correction); };
    auto fs = [correction](const std::vector<double>& g) { return std::sqrt(vvar(g, correction)); };
    CHECK(x.var(correction).item<double>() == Approx(f(values(x))).epsilon(1e-6));
    CHECK(x.std(correction).item<double>() == Approx(fs(values(x))).epsilon(1e-6));
    for (int d = 0; d < 3; ++d) {
      std::array<bool, 3> mask{d == 0, d == 1, d == 2};
      CHECK(close(values(x.var(d, true, correction)), naive_reduce3(x, mask, f), 1e-5, 1e-7));
      CHECK(close(values(x.std(d - 3, false, correction)), naive_reduce3(x, mask, fs), 1e-5, 1e-7));
      CHECK(x.var(d, true, correction).dim() == 3);
      CHECK(x.std(d, false, correction).dim() == 2);
    }
  }
  // A large common offset does not ruin the variance (two-pass algorithm in float64).
  const kd::Tensor big = kd::tensor({1e6f + 1, 1e6f + 2, 1e6f + 3, 1e6f + 4});
  CHECK(big.var().item<double>() == Approx(5.0 / 3.0).epsilon(1e-6));
}

TEST_CASE("var: too few elements give NaN or inf like PyTorch, integers are refused") {
  CHECK(std::isnan(kd::ones({1}).var().item<double>()));
  CHECK(std::isinf(kd::tensor({1.0f, 2.0f, 3.0f}).var(5).item<double>()));
  CHECK(std::isnan(kd::zeros({0}).var().item<double>()));
  CHECK_THROWS_AS(kd::arange(3).var(), kd::DTypeError);
  CHECK_THROWS_WITH(kd::arange(3).std(), Contains("std") && Contains("int64"));
}

TEST_CASE("reductions: record their keys with normalised dims") {
  using kd::testing::ref;
  kd::testing::RecordCapture cap;
  const kd::Tensor x = kd::testing::needs_grad(sample({2, 3, 4}));
  (void)x.sum();
  CHECK(cap.last().op == "sum");
  CHECK(cap.last().args == ref(x));
  (void)x.sum({-1, 0}, true);
  CHECK(cap.last().op == "sum_dim");
  CHECK(cap.last().args == ref(x) + ", [0, 2], True");
  (void)x.mean(1);
  CHECK(cap.last().op == "mean_dim");
  CHECK(cap.last().args == ref(x) + ", [1], False");
  (void)x.max();
  CHECK(cap.last().op == "max");
  (void)x.min();
  CHECK(cap.last().op == "min");
  (void)x.max(-1, true);
  CHECK(cap.last().op == "max_dim");
  CHECK(cap.last().args == ref(x) + ", 2, True");
  REQUIRE(cap.last().outputs.size() == 2);
  CHECK(cap.last().outputs[1].dtype() == kd::kInt64);
  (void)x.min(0);
  CHECK(cap.last().op == "min_dim");
  (void)x.var(1, true, 0);
  CHECK(cap.last().op == "var");
  CHECK(cap.last().args == ref(x) + ", [1], 0, True");
  (void)x.std();
  CHECK(cap.last().op == "std");
  CHECK(cap.last().args == ref(x) + ", [], 1, False");
  const std::size_t n = cap.records.size();
  (void)x.argmax();
  (void)x.argmin(1);
  CHECK(cap.records.size() == n);  // indices are not differentiable
}
