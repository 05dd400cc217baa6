// ch08.ex5 — the device-to-host copy of a strided tensor (behind cpu() for tensors on cuda:0), on the
// emulated device.
#include "ch08_grading.hpp"

using namespace ch08_grading;

namespace {
kd::Device device() {
  if (!kc::is_emulated()) kc::use_emulated_device();
  return kd::Device::parse("cuda");
}
}  // namespace

TEST_CASE("strided copy: a transpose comes back from the device", "[ch08][ex5][pts=4]") {
  const kd::Tensor x = grading::input("x").to(device());  // [3, 4]
  grading::expect("x.t()", x.t().cpu());
  grading::expect("x", x.cpu());
}

TEST_CASE("strided copy: slices with steps and offsets", "[ch08][ex5][pts=4]") {
  const kd::Tensor x = grading::input("x").to(device());  // [5, 6]
  grading::expect("x[1:5:2, 2:6]", x.slice(0, 1, 5, 2).slice(1, 2, 6).cpu());
  grading::expect("x[:, 3]", x.select(1, 3).cpu());
  grading::expect("x[4, 1:]", x.select(0, 4).slice(0, 1, 6).cpu());
}

TEST_CASE("strided copy: an expanded view and a 0-d tensor", "[ch08][ex5][pts=4]") {
  const kd::Tensor col = grading::input("col").to(device());  // [3, 1]
  grading::expect("col.expand(3, 4)", col.expand({3, 4}).cpu());
  grading::expect("col[2, 0]", col.select(0, 2).select(0, 0).cpu());
}

TEST_CASE("strided copy: empty tensors, float64 and int64", "[ch08][ex5][pts=3]") {
  const kd::Tensor d = grading::input("d").to(device()), i = grading::input("i").to(device());
  grading::expect("d.t()", d.t().cpu());
  grading::expect("i[:, ::2]", i.slice(1, 0, 4, 2).cpu());
  grading::expect("d[:0]", d.slice(0, 0, 0).cpu());
}
