// ch08.ex2 — a block reduction in shared memory (emulated::sum_v1).
#include "ch08_grading.hpp"

using namespace ch08_grading;

namespace {
// *out += sum(x[0..n)), with out starting at `start`; reported as a 0-d float32 tensor. Every call
// checks the launch was the tree in shared memory (sum_v2, the shuffle version, is not this one).
kd::Tensor sum_v1(const kd::Tensor& x, std::int64_t n, float start = 0.0f) {
  float out = start;
  const auto log = launches_of([&] { emu::sum_v1(x.data_ptr<float>(), n, &out); });
  REQUIRE(log.size() == 1);
  const auto& r = log.front();
  INFO(describe(r));
  CHECK(r.block.x * r.block.y * r.block.z == 256);
  CHECK(r.shuffles == 0);
  CHECK(r.shared_bytes >= 256 * sizeof(float));  // 256 partial sums in shared memory
  CHECK(r.barriers >= 8 * r.threads);            // a barrier per level of the tree: 8 levels
  return kd::scalar_tensor(out);
}
}  // namespace

TEST_CASE("block sum: lengths around the block size", "[ch08][ex2][pts=8]") {
  const kd::Tensor x = grading::input("x");  // [1000]
  for (std::int64_t n : {1, 31, 255, 256, 257, 1000})
    grading::expect("sum(x[:" + std::to_string(n) + "])", sum_v1(x, n));
}

TEST_CASE("block sum: many blocks add into out", "[ch08][ex2][pts=6]") {
  const kd::Tensor x = grading::input("x");  // [100000]: 391 blocks
  grading::expect("1.5 + sum(x)", sum_v1(x, x.numel(), 1.5f));
}

TEST_CASE("block sum: a tree in shared memory, without shuffles", "[ch08][ex2][pts=4]") {
  const kd::Tensor x = grading::input("x");  // [3000]: 12 blocks of 256
  const kd::Tensor total = sum_v1(x, x.numel());  // sum_v1() checks the launch
  grading::expect("sum(x)", total);
}

TEST_CASE("block sum: an empty vector adds nothing", "[ch08][ex2][pts=2]") {
  const kd::Tensor x = grading::input("x");
  grading::expect("2.5 + sum(x[:0])", sum_v1(x, 0, 2.5f));
}
