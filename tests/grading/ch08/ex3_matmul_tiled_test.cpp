// ch08.ex3 — matmul v2, shared-memory tiles (emulated::matmul_v2).
#include "ch08_grading.hpp"

using namespace ch08_grading;

namespace {
// c = a @ b through the learner's matmul_v2. Every call checks the launch: one 16x16 block per
// 16x16 tile of c and, when there is a K to walk, the tiles in shared memory behind barriers
// (matmul_v1 has the same grid but neither; matmul_v3 has 64x64 tiles).
kd::Tensor matmul_v2(const kd::Tensor& a, const kd::Tensor& b) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1)),
            N = static_cast<int>(b.size(1));
  std::vector<float> c(static_cast<std::size_t>(M) * static_cast<std::size_t>(N), NAN);
  const auto log = launches_of([&] {
    emu::matmul_v2(a.data_ptr<float>(), b.data_ptr<float>(), c.data(), M, N, K);
  });
  REQUIRE(log.size() == 1);
  const auto& r = log.front();
  INFO(describe(r));
  CHECK(r.grid.x == static_cast<unsigned>((N + 15) / 16));  // tiles of columns
  CHECK(r.grid.y == static_cast<unsigned>((M + 15) / 16));  // tiles of rows
  CHECK(r.block.x == 16);
  CHECK(r.block.y == 16);
  if (K > 0) {
    CHECK(r.shared_bytes >= 2 * 16 * 16 * sizeof(float));  // a tile of a and a tile of b
    CHECK(r.barriers >= 2 * static_cast<std::uint64_t>((K + 15) / 16) * r.threads);  // 2 per step
  }
  return as_tensor(c, {M, N});
}
}  // namespace

TEST_CASE("tiled matmul: shapes that are not multiples of 16", "[ch08][ex3][pts=8]") {
  grading::expect("[33, 29] @ [29, 47]", matmul_v2(grading::input("a1"), grading::input("b1")));
  grading::expect("[17, 40] @ [40, 1]", matmul_v2(grading::input("a2"), grading::input("b2")));
}

TEST_CASE("tiled matmul: one row, one column, K = 1, K = 0, an empty c", "[ch08][ex3][pts=7]") {
  grading::expect("[1, 1] @ [1, 1]", matmul_v2(grading::input("a1"), grading::input("b1")));
  grading::expect("[1, 3] @ [3, 20]", matmul_v2(grading::input("a2"), grading::input("b2")));
  grading::expect("[20, 3] @ [3, 1]", matmul_v2(grading::input("a3"), grading::input("b3")));
  grading::expect("[5, 0] @ [0, 7]", matmul_v2(grading::input("a4"), grading::input("b4")));
  const auto log = launches_of([] { emu::matmul_v2(nullptr, nullptr, nullptr, 0, 4, 3); });
  CHECK(log.empty());  // no tile of c: nothing to launch
}

TEST_CASE("tiled matmul: one 16x16 block per tile, tiles in shared memory", "[ch08][ex3][pts=6]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b");  // [40, 35] @ [35, 50]
  kd::Tensor c;
  const auto log = launches_of([&] { c = matmul_v2(a, b); });  // matmul_v2() checks the shape
  REQUIRE(log.size() == 1);
  const auto& r = log.front();
  INFO(describe(r));
  // The point of the tiles: each element loaded from global memory is used 16 times. A naive kernel
  // reads 2K = 70 elements per output, 140000 in all; the tiled one a sixteenth of that or so.
  CHECK(r.global_reads <= 2 * 40 * 50 * 35 / 8);
  grading::expect("[40, 35] @ [35, 50]", c);
}

TEST_CASE("tiled matmul: a larger product, 70 x 50 x 90", "[ch08][ex3][pts=4]") {
  grading::expect("[70, 50] @ [50, 90]", matmul_v2(grading::input("a"), grading::input("b")));
}
