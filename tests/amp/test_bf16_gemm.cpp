// The 16-bit GEMM (lib/src/tensor/bf16_gemm.cpp): float32 accumulation, one rounding, whichever path
// runs. Its values are compared with PyTorch in tests/parity/ch06_amp.* ("bf16-gemm/...").
#include <catch2/catch.hpp>
#include <kindling/amp.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace kd = kindling;

namespace {

bool widened_path() { return kd::bfloat16_gemm_backend().rfind("float32 GEMM", 0) == 0; }

/// The float32 product of the 16-bit inputs, rounded once to their dtype.
kd::Tensor rounded_once(const kd::Tensor& a, const kd::Tensor& b) {
  return a.to(kd::kFloat32).matmul(b.to(kd::kFloat32)).to(a.dtype());
}

/// Largest |got - want| over (2^-7 |want| + 1e-4): one bfloat16 ulp is at most 2^-7 of the value,
/// and where a sum cancels to near zero two float32 summation orders differ by ~sqrt(K) 2^-24 Σ|ab|
/// before the rounding (tests/parity/ch06_amp.py uses the same tolerance).
double worst_excess(const kd::Tensor& got, const kd::Tensor& want) {
  const auto g = got.to(kd::kFloat64).contiguous().to_vector<double>();
  const auto w = want.to(kd::kFloat64).contiguous().to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i)
    worst = std::max(worst, std::abs(g[i] - w[i]) / (0x1p-7 * std::abs(w[i]) + 1e-4));
  return worst;
}

}  // namespace

TEST_CASE("bf16 gemm: the backend names the path that runs") {
  const std::string backend = kd::bfloat16_gemm_backend();
  INFO(backend);
  CHECK((backend.rfind("oneDNN matmul (", 0) == 0 || widened_path()));
}

TEST_CASE("bf16 gemm: bfloat16 products are the float32 products of the inputs, rounded once") {
  kd::manual_seed(6);
  // SimpleNet's three products (x @ w^T, g^T @ x, g @ w) and an odd shape that fits no block.
  const kd::Tensor x = kd::randn({32, 784}).to(kd::kBFloat16), w = kd::randn({128, 784}).to(kd::kBFloat16);
  const kd::Tensor g = kd::randn({32, 128}).to(kd::kBFloat16);
  const kd::Tensor a = kd::randn({37, 301}).to(kd::kBFloat16), b = kd::randn({301, 19}).to(kd::kBFloat16);
  const std::pair<kd::Tensor, kd::Tensor> products[] = {{x, w.t()}, {g.t(), x}, {g, w}, {a, b}};
  for (const auto& [l, r] : products) {
    const kd::Tensor got = l.matmul(r), want = rounded_once(l, r);
    REQUIRE(got.dtype() == kd::kBFloat16);
    INFO(kd::bfloat16_gemm_backend());
    if (widened_path()) CHECK(kd::equal(got, want));  // the same float32 GEMM: the same bits
    else CHECK(worst_excess(got, want) <= 1.0);  // another summation order: one rounding apart
  }
}

TEST_CASE("bf16 gemm: float16 products widen, multiply in float32 and round once") {
  kd::manual_seed(7);
  const kd::Tensor a = kd::randn({16, 300}).to(kd::kFloat16), b = kd::randn({300, 8}).to(kd::kFloat16);
  const kd::Tensor got = a.matmul(b);
  REQUIRE(got.dtype() == kd::kFloat16);
  CHECK(kd::equal(got, rounded_once(a, b)));
}

TEST_CASE("bf16 gemm: empty inner dimension gives zeros, empty outer dimensions an empty result") {
  const kd::Tensor a = kd::zeros({3, 0}).to(kd::kBFloat16), b = kd::zeros({0, 4}).to(kd::kBFloat16);
  const kd::Tensor c = a.matmul(b);
  CHECK(c.shape() == kd::Shape{3, 4});
  CHECK(kd::equal(c, kd::zeros({3, 4}).to(kd::kBFloat16)));
  CHECK(b.t().matmul(a.t()).shape() == kd::Shape{4, 3});
  CHECK(kd::zeros({0, 5}).to(kd::kBFloat16).matmul(kd::ones({5, 2}).to(kd::kBFloat16)).numel() == 0);
}

TEST_CASE("bf16 gemm: mixed 16-bit dtypes are refused with both names") {
  const kd::Tensor a = kd::ones({2, 2}).to(kd::kBFloat16), b = kd::ones({2, 2}).to(kd::kFloat16);
  CHECK_THROWS_AS(a.matmul(b), kd::DTypeError);
  CHECK_THROWS_WITH(a.matmul(b), Catch::Contains("bfloat16") && Catch::Contains("float16"));
}
