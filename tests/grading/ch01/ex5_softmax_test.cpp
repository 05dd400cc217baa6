// ch01.ex5 — a stable softmax: equal to the library's, finite on huge logits, rows summing to 1.
#include "ch01_grading.hpp"

using namespace ch01_grading;

namespace {
void check_against_library(const kd::Tensor& x, std::int64_t dim) {
  INFO("x " << kd::shape_str(x.shape()) << " " << kd::dtype_name(x.dtype()) << ", strides "
            << kd::shape_str(x.strides()) << ", dim " << dim);
  const kd::Tensor p = ex::softmax(x, dim);
  const kd::Tensor expected = kd::softmax(x, dim);
  REQUIRE(p.shape() == expected.shape());
  REQUIRE(p.dtype() == expected.dtype());
  const bool f64 = x.dtype() == kd::kFloat64;
  CHECK(kd::allclose(p, expected, f64 ? 1e-10 : 1e-5, f64 ? 1e-12 : 1e-6));
}
}  // namespace

TEST_CASE("ch01.ex5: softmax equals the library's along every dim, negative dims too", "[ch01][ex5][pts=6]") {
  kd::Generator gen(10);
  for (kd::DType dtype : {kd::kFloat32, kd::kFloat64}) {
    for (const kd::Shape& shape : std::vector<kd::Shape>{{7}, {4, 10}, {2, 3, 5}, {3, 1, 4}}) {
      const kd::Tensor x = random_of(shape, dtype, gen);
      const std::int64_t nd = x.dim();
      for (std::int64_t dim = -nd; dim < nd; ++dim) check_against_library(x, dim);
    }
  }
}

TEST_CASE("ch01.ex5: softmax of non-contiguous inputs", "[ch01][ex5][pts=3]") {
  kd::Generator gen(11);
  check_against_library(random_of({5, 4}, kd::kFloat32, gen).t(), 1);
  check_against_library(random_of({3, 4, 6}, kd::kFloat32, gen).permute({2, 0, 1}), 0);
  check_against_library(random_of({4, 9}, kd::kFloat64, gen).slice(1, 0, 9, 2), -1);
  check_against_library(random_of({4, 1}, kd::kFloat32, gen).expand({4, 5}), 1);
}

TEST_CASE("ch01.ex5: logits around 1000 give finite probabilities that sum to 1", "[ch01][ex5][pts=6]") {
  kd::Generator gen(12);
  for (kd::DType dtype : {kd::kFloat32, kd::kFloat64}) {
    // Naive exp(1000) is inf in both float32 and float64, and inf / inf is NaN.
    const kd::Tensor small = random_of({6, 10}, dtype, gen);
    const kd::Tensor logits = small * 100.0 + 1000.0;
    INFO(kd::dtype_name(dtype));
    REQUIRE_FALSE(all_finite(logits.exp()));  // the trap is real
    for (std::int64_t dim : {0, 1, -1}) {
      INFO("dim " << dim);
      const kd::Tensor p = ex::softmax(logits, dim);
      REQUIRE(all_finite(p));
      CHECK(kd::allclose(p.sum(dim), kd::ones_like(p.sum(dim)), 1e-5, 1e-5));
      check_against_library(logits, dim);
    }
    // Softmax ignores a constant shift: softmax(x + 1000) == softmax(x).
    CHECK(kd::allclose(ex::softmax(small + 1000.0, 1), ex::softmax(small, 1), 1e-4, 1e-6));
  }
}
