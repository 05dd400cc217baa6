// Instructor-only tests for chapter 1 (not in the student handout): random fuzzing of the exercises that
// walk strides by hand, so a solution tuned to the visible tests' shapes does not pass by luck.
#include "ch01/ch01_grading.hpp"

using namespace ch01_grading;

TEST_CASE("ch01.ex1 (hidden): element_offset on 100 random views", "[ch01][ex1][pts=3][hidden]") {
  kd::Generator gen(101);
  for (int i = 0; i < 100; ++i) {
    const kd::Tensor v = random_view(gen);
    INFO("shape " << kd::shape_str(v.shape()) << ", strides " << kd::shape_str(v.strides()));
    for (const auto& idx : all_indices(v.shape())) {
      std::vector<kd::indexing::TensorIndex> ti(idx.begin(), idx.end());
      REQUIRE(ex::element_offset(v, idx) == v.index(ti).storage_offset());
    }
  }
}

TEST_CASE("ch01.ex3 (hidden): contiguous_copy of 300 random bool and uint8 views", "[ch01][ex3][pts=3][hidden]") {
  kd::Generator gen(103);
  for (int i = 0; i < 300; ++i) {
    const kd::Tensor v = random_view(gen, i % 2 ? kd::kBool : kd::kUInt8);
    INFO("shape " << kd::shape_str(v.shape()) << ", strides " << kd::shape_str(v.strides()));
    const kd::Tensor out = ex::contiguous_copy(v);
    REQUIRE(out.is_contiguous());
    REQUIRE_FALSE(out.shares_storage(v));
    REQUIRE(kd::equal(out, v.contiguous()));
  }
}

TEST_CASE("ch01.ex5 (hidden): softmax of random views, dims and magnitudes", "[ch01][ex5][pts=3][hidden]") {
  kd::Generator gen(105);
  for (int i = 0; i < 100; ++i) {
    const kd::Tensor v = random_view(gen, kd::kFloat64) * static_cast<double>(gen.randint(1, 2000));
    const std::int64_t dim = gen.randint(-v.dim(), v.dim());
    INFO("shape " << kd::shape_str(v.shape()) << ", dim " << dim);
    const kd::Tensor p = ex::softmax(v, dim);
    REQUIRE(all_finite(p));
    REQUIRE(kd::allclose(p, kd::softmax(v, dim), 1e-9, 1e-12));
  }
}

TEST_CASE("ch01.ex6 (hidden): sum_dim of 200 random views", "[ch01][ex6][pts=4][hidden]") {
  kd::Generator gen(106);
  for (int i = 0; i < 200; ++i) {
    const kd::Tensor v = random_view(gen, i % 3 == 0 ? kd::kInt64 : kd::kFloat64);
    const std::int64_t dim = gen.randint(-v.dim(), v.dim());
    const bool keepdim = gen.randint(0, 2) == 1;
    INFO("shape " << kd::shape_str(v.shape()) << ", strides " << kd::shape_str(v.strides()) << ", dim " << dim);
    const kd::Tensor got = ex::sum_dim(v, dim, keepdim);
    const kd::Tensor expected = v.sum(dim, keepdim);
    REQUIRE(got.shape() == expected.shape());
    REQUIRE(got.dtype() == expected.dtype());
    REQUIRE(kd::allclose(got, expected, 1e-9, 1e-9));
  }
}
