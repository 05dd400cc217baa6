// ch08.ex4 — softmax over rows, one block per row (emulated::softmax_rows).
#include "ch08_grading.hpp"

using namespace ch08_grading;

namespace {
// softmax over the rows of x through the learner's kernel; every call checks it was one launch with
// one block per row (the work happens on the device, not on the host).
kd::Tensor softmax_rows(const kd::Tensor& x) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  std::vector<float> out(static_cast<std::size_t>(x.numel()), NAN);
  const auto log = launches_of([&] { emu::softmax_rows(x.data_ptr<float>(), out.data(), rows, cols); });
  REQUIRE(log.size() == 1);
  INFO(describe(log.front()));
  CHECK(log.front().grid.x * log.front().grid.y * log.front().grid.z == static_cast<unsigned>(rows));
  CHECK(log.front().global_accesses >= static_cast<std::uint64_t>(x.numel()));  // every output written
  return as_tensor(out, x.shape());
}
}  // namespace

TEST_CASE("softmax rows: widths below, at and above the block", "[ch08][ex4][pts=8]") {
  for (const char* name : {"x7", "x128", "x300"}) {
    const kd::Tensor x = grading::input(name);
    grading::expect(std::string("softmax(") + name + ", 1)", softmax_rows(x));
  }
}

TEST_CASE("softmax rows: large logits do not overflow", "[ch08][ex4][pts=5]") {
  const kd::Tensor x = grading::input("x");  // 50 randn + 100: exp(x) is inf in float32
  grading::expect("softmax(50 x + 100, 1)", softmax_rows(x));
}

TEST_CASE("softmax rows: one block per row; an empty matrix launches nothing", "[ch08][ex4][pts=7]") {
  grading::expect("softmax(x, 1)", softmax_rows(grading::input("x")));  // [6, 45]: 6 blocks
  const auto log = launches_of([] {
    emu::softmax_rows(nullptr, nullptr, 0, 5);
    emu::softmax_rows(nullptr, nullptr, 4, 0);
  });
  CHECK(log.empty());
}
