// ch01.ex1 — row-major strides and element offsets, checked against the library on many layouts.
#include "ch01_grading.hpp"

using namespace ch01_grading;

TEST_CASE("ch01.ex1: row_major_strides equals the library's contiguous strides", "[ch01][ex1][pts=4]") {
  const std::vector<kd::Shape> shapes = {{}, {5}, {2, 3}, {2, 3, 4}, {7, 1, 5}, {1, 1}, {0, 3}, {3, 0, 2},
                                         {2, 1, 3, 1, 4}};
  for (const auto& shape : shapes) {
    INFO("shape " << kd::shape_str(shape));
    const kd::Strides mine = ex::row_major_strides(shape);
    CHECK(mine == kd::contiguous_strides(shape));
    CHECK(mine == kd::empty(shape).strides());  // what a fresh tensor actually gets
  }
}

TEST_CASE("ch01.ex1: element_offset finds every element of every layout", "[ch01][ex1][pts=8]") {
  for (const auto& c : layout_zoo(kd::kFloat32)) {
    INFO("layout: " << c.name << ", shape " << kd::shape_str(c.t.shape()) << ", strides "
                    << kd::shape_str(c.t.strides()) << ", storage_offset " << c.t.storage_offset());
    const float* storage = static_cast<const float*>(c.t.storage()->data());
    for (const auto& idx : all_indices(c.t.shape())) {
      INFO("index " << index_str(idx));
      // The library's own answer: select along every dimension, then read the 0-d view's offset.
      std::vector<kd::indexing::TensorIndex> ti(idx.begin(), idx.end());
      const kd::Tensor element = c.t.index(ti);
      const std::int64_t got = ex::element_offset(c.t, idx);
      REQUIRE(got == element.storage_offset());
      REQUIRE(storage[got] == element.item<float>());
      // Negative indices name the same element, counted from the end.
      std::vector<std::int64_t> neg(idx);
      for (std::size_t d = 0; d < neg.size(); ++d) neg[d] -= c.t.size(static_cast<std::int64_t>(d));
      REQUIRE(ex::element_offset(c.t, neg) == got);
    }
  }
}

TEST_CASE("ch01.ex1: element_offset rejects a wrong number of indices and out-of-range ones",
          "[ch01][ex1][pts=3]") {
  const kd::Tensor t = kd::zeros({2, 3, 4}).permute({1, 2, 0});  // [3, 4, 2]
  CHECK_THROWS_AS(ex::element_offset(t, {0, 0}), kd::IndexError);
  CHECK_THROWS_AS(ex::element_offset(t, {0, 0, 0, 0}), kd::IndexError);
  CHECK_THROWS_AS(ex::element_offset(t, {t.size(0), 0, 0}), kd::IndexError);
  CHECK_THROWS_AS(ex::element_offset(t, {0, -t.size(1) - 1, 0}), kd::IndexError);
  CHECK_THROWS_AS(ex::element_offset(kd::zeros({0, 3}), {0, 0}), kd::IndexError);
  // The library agrees that these are errors.
  CHECK_THROWS_AS(t.index({t.size(0), 0, 0}), kd::IndexError);
}
