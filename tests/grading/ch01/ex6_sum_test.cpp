// ch01.ex6 — a reduction: sum and mean over dimensions (detail::sum_keepdim).
#include "ch01_grading.hpp"

using namespace ch01_grading;

namespace {
std::string b(bool v) { return v ? "true" : "false"; }
}  // namespace

TEST_CASE("sum: along every dim, with and without keepdim", "[ch01][ex6][pts=3]") {
  for (const std::string name : {"x", "y"}) {
    const kd::Tensor t = grading::input(name);
    for (std::int64_t d = -t.dim(); d < t.dim(); ++d) {
      for (bool keep : {false, true}) {
        grading::expect(name + ".sum(" + std::to_string(d) + ", " + b(keep) + ")", t.sum(d, keep));
      }
    }
  }
}

TEST_CASE("sum: over several dims, and over everything", "[ch01][ex6][pts=2]") {
  const kd::Tensor x = grading::input("x");
  grading::expect("x.sum({0, 2})", x.sum(std::vector<std::int64_t>{0, 2}));
  grading::expect("x.sum({-1, 0}, true)", x.sum(std::vector<std::int64_t>{-1, 0}, true));
  grading::expect("x.sum({1, 2, 3})", x.sum(std::vector<std::int64_t>{1, 2, 3}));
  grading::expect("x.sum()", x.sum());
}

TEST_CASE("sum: bool, uint8 and int64 sum to int64", "[ch01][ex6][pts=2]") {
  const kd::Tensor m = grading::input("m"), u = grading::input("u"), i = grading::input("i");
  grading::expect("m.sum()", m.sum());
  grading::expect("m.sum(0)", m.sum(0));
  grading::expect("u.sum(1)", u.sum(1));
  grading::expect("u.sum()", u.sum());
  grading::expect("i.sum(-1, true)", i.sum(-1, true));
  grading::expect("i.sum(0)", i.sum(0));
}

TEST_CASE("sum: empty dimensions sum to 0, and 0-d tensors", "[ch01][ex6][pts=2]") {
  const kd::Tensor e = grading::input("e"), z = grading::input("z"), zi = grading::input("zi");
  grading::expect("e.sum(0)", e.sum(0));
  grading::expect("e.sum(1)", e.sum(1));
  grading::expect("e.sum()", e.sum());
  grading::expect("e.sum(0, true)", e.sum(0, true));
  grading::expect("z.sum(0)", z.sum(0));
  grading::expect("z.sum(-1, true)", z.sum(-1, true));
  grading::expect("z.sum()", z.sum());
  grading::expect("zi.sum()", zi.sum());
}

TEST_CASE("sum: non-contiguous inputs", "[ch01][ex6][pts=2]") {
  const kd::Tensor a = grading::input("a"), bb = grading::input("b"), c = grading::input("c"), d = grading::input("d");
  grading::expect("a.t().sum(1)", a.t().sum(1));
  grading::expect("a.t().sum(0)", a.t().sum(0));
  grading::expect("b.expand(3, 5).sum(1)", bb.expand({3, 5}).sum(1));
  grading::expect("b.expand(3, 5).sum(0)", bb.expand({3, 5}).sum(0));
  grading::expect("c[:, ::2].sum(-1)", c.slice(1, 0, 9, 2).sum(-1));
  grading::expect("d.permute(2, 0, 1).sum({0, 2})", d.permute({2, 0, 1}).sum(std::vector<std::int64_t>{0, 2}));
}

TEST_CASE("mean: along dims and over everything", "[ch01][ex6][pts=2]") {
  const kd::Tensor x = grading::input("x"), y = grading::input("y");
  grading::expect("x.mean(1)", x.mean(1));
  grading::expect("x.mean({0, 2}, true)", x.mean(std::vector<std::int64_t>{0, 2}, true));
  grading::expect("x.mean()", x.mean());
  grading::expect("y.mean(0)", y.mean(0));
  grading::expect("y.t().mean(1)", y.t().mean(1));
}

TEST_CASE("sum: a million float32 values, accurately", "[ch01][ex6][pts=2]") {
  const kd::Tensor x = grading::input("x"), y = grading::input("y");
  grading::expect("x.sum()", x.sum());
  grading::expect("y.sum(0)", y.sum(0));
  grading::expect("y.sum(1)", y.sum(1));
}
