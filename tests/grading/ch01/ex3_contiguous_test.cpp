// ch01.ex3 — contiguous() by hand: same values, row-major, own storage, for every layout and dtype.
#include "ch01_grading.hpp"

using namespace ch01_grading;

namespace {
void check_copy(const kd::Tensor& view) {
  const kd::Tensor out = ex::contiguous_copy(view);
  REQUIRE(out.defined());
  REQUIRE(out.shape() == view.shape());
  REQUIRE(out.dtype() == view.dtype());
  CHECK(out.strides() == kd::contiguous_strides(view.shape()));  // row-major
  CHECK(out.storage_offset() == 0);
  CHECK_FALSE(out.shares_storage(view));                         // a copy, not a view
  CHECK(kd::equal(out, view.contiguous()));                      // the library's answer
}
}  // namespace

TEST_CASE("ch01.ex3: contiguous_copy of float32 views in many layouts", "[ch01][ex3][pts=8]") {
  for (const auto& c : layout_zoo(kd::kFloat32)) {
    INFO("layout: " << c.name << ", shape " << kd::shape_str(c.t.shape()) << ", strides "
                    << kd::shape_str(c.t.strides()));
    check_copy(c.t);
  }
}

TEST_CASE("ch01.ex3: contiguous_copy works for every dtype", "[ch01][ex3][pts=5]") {
  for (kd::DType dtype : {kd::kFloat64, kd::kInt64, kd::kUInt8, kd::kBool}) {
    for (const auto& c : layout_zoo(dtype, 3)) {
      INFO("dtype " << kd::dtype_name(dtype) << ", layout: " << c.name);
      check_copy(c.t);
    }
  }
}

TEST_CASE("ch01.ex3: the copy is independent of the original", "[ch01][ex3][pts=3]") {
  kd::Tensor base = kd::arange(12).to(kd::kFloat32).view({3, 4});
  const kd::Tensor view = base.t();  // [4, 3], strides [1, 4]
  kd::Tensor out = ex::contiguous_copy(view);
  const kd::Tensor before = view.clone();
  out.fill_(-1);                    // writing into the copy ...
  CHECK(kd::equal(view, before));   // ... leaves the original alone
  base.zero_();                     // and writing into the original ...
  CHECK(kd::equal(out, kd::full_like(out, -1)));  // ... leaves the copy alone
}

TEST_CASE("ch01.ex3: contiguous_copy of 200 random views", "[ch01][ex3][pts=4]") {
  kd::Generator gen(4);
  for (int i = 0; i < 200; ++i) {
    const kd::Tensor v = random_view(gen, i % 2 ? kd::kFloat64 : kd::kInt64);
    INFO("shape " << kd::shape_str(v.shape()) << ", strides " << kd::shape_str(v.strides()) << ", offset "
                  << v.storage_offset());
    check_copy(v);
  }
}
