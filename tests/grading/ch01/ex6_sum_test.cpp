// ch01.ex6 — sum along one dim (keepdim): equal to the library's for every dim, dtype and layout.
#include "ch01_grading.hpp"

using namespace ch01_grading;

namespace {
void check_sum(const kd::Tensor& x, std::int64_t dim, bool keepdim) {
  INFO("x " << kd::shape_str(x.shape()) << " " << kd::dtype_name(x.dtype()) << ", strides "
            << kd::shape_str(x.strides()) << ", dim " << dim << ", keepdim " << keepdim);
  const kd::Tensor got = ex::sum_dim(x, dim, keepdim);
  const kd::Tensor expected = x.sum(dim, keepdim);
  REQUIRE(got.defined());
  REQUIRE(got.shape() == expected.shape());
  REQUIRE(got.dtype() == expected.dtype());
  if (expected.is_floating_point()) {
    CHECK(kd::allclose(got, expected, 1e-5, 1e-5));
  } else {
    CHECK(kd::equal(got, expected));  // integer sums are exact
  }
}
}  // namespace

TEST_CASE("ch01.ex6: sum_dim equals the library's for every dim, with and without keepdim",
          "[ch01][ex6][pts=7]") {
  kd::Generator gen(20);
  for (const kd::Shape& shape : std::vector<kd::Shape>{{6}, {3, 4}, {2, 3, 4}, {2, 1, 3, 5}}) {
    const kd::Tensor x = random_of(shape, kd::kFloat32, gen);
    for (std::int64_t dim = -x.dim(); dim < x.dim(); ++dim) {
      check_sum(x, dim, false);
      check_sum(x, dim, true);
    }
  }
}

TEST_CASE("ch01.ex6: sum_dim of non-contiguous inputs", "[ch01][ex6][pts=5]") {
  for (const auto& c : layout_zoo(kd::kFloat64, 21)) {
    INFO("layout: " << c.name);
    for (std::int64_t dim = -std::max<std::int64_t>(c.t.dim(), 1); dim < std::max<std::int64_t>(c.t.dim(), 1);
         ++dim) {
      check_sum(c.t, dim, false);
      check_sum(c.t, dim, true);
    }
  }
}

TEST_CASE("ch01.ex6: integers and bools sum to int64, exactly", "[ch01][ex6][pts=4]") {
  kd::Generator gen(22);
  for (kd::DType dtype : {kd::kInt64, kd::kUInt8, kd::kBool}) {
    const kd::Tensor x = random_of({4, 5, 3}, dtype, gen);
    check_sum(x, 1, false);
    check_sum(x.permute({2, 0, 1}), -1, true);
  }
}

TEST_CASE("ch01.ex6: edge cases: 0-d, empty dims, bad dims", "[ch01][ex6][pts=4]") {
  kd::Generator gen(23);
  const kd::Tensor scalar = random_of({}, kd::kFloat32, gen);
  check_sum(scalar, 0, false);
  check_sum(scalar, -1, true);
  const kd::Tensor empty = kd::zeros({3, 0, 2});
  check_sum(empty, 1, false);  // summing nothing gives 0
  check_sum(empty, 1, true);
  check_sum(empty, 0, false);  // the result itself is empty
  const kd::Tensor x = random_of({2, 3}, kd::kFloat32, gen);
  CHECK_THROWS_AS(ex::sum_dim(x, 2), kd::IndexError);
  CHECK_THROWS_AS(ex::sum_dim(x, -3), kd::IndexError);
}
