// ch01.ex2 — views: Tensor::permute and Tensor::select (detail::permute_view, detail::select_view).
#include "ch01_grading.hpp"

using namespace ch01_grading;

TEST_CASE("permute: the view's shape, strides, offset and values", "[ch01][ex2][pts=3]") {
  const kd::Tensor x = grading::input("x");
  for (const auto& [bname, base] : {std::pair{std::string("x"), x}, std::pair{std::string("x[:, :, 1:]"), x.slice(2, 1, 4, 1)}}) {
    for (const auto& p : int_lists("perms")) {
      const kd::Tensor v = base.permute(p);
      const std::string what = bname + ".permute(" + str(p) + ")";
      grading::expect(what, v);
      grading::expect(what + ".strides()", v.strides());
      grading::expect(what + ".storage_offset()", v.storage_offset());
    }
  }
}

TEST_CASE("permute: writing through the view changes its input", "[ch01][ex2][pts=1]") {
  kd::Tensor x = grading::input("x");
  kd::Tensor p = x.permute({2, 0, 1});
  grading::expect("shares storage", p.shares_storage(x));
  p.fill_(7.0);
  grading::expect("x after p.fill_(7)", x);
}

TEST_CASE("permute: wrong lists of dims are refused", "[ch01][ex2][pts=2]") {
  const kd::Tensor x = grading::input("x");
  for (const auto& p : int_lists("perms")) {
    grading::expect_error("x.permute(" + str(p) + ")", [&] { (void)x.permute(p); });
  }
}

TEST_CASE("select: every index along every dim", "[ch01][ex2][pts=3]") {
  const kd::Tensor x = grading::input("x");
  for (std::int64_t d = -3; d < 3; ++d) {
    for (std::int64_t i : {0, 1, -1}) {
      const kd::Tensor v = x.select(d, i);
      const std::string what = "x.select(" + std::to_string(d) + ", " + std::to_string(i) + ")";
      grading::expect(what, v);
      grading::expect(what + ".strides()", v.strides());
      grading::expect(what + ".storage_offset()", v.storage_offset());
    }
  }
}

TEST_CASE("select: x[i], index() and selects of views", "[ch01][ex2][pts=1]") {
  using kd::indexing::Slice;
  const kd::Tensor x = grading::input("x"), y = grading::input("y");
  grading::expect("x.transpose(0, 2)[1]", x.transpose(0, 2)[1]);
  grading::expect("x[-1]", x[-1]);
  grading::expect("x.index({1, Slice(), 2})", x.index({1, Slice(), 2}));
  grading::expect("y.expand(3, 4).select(1, 2)", y.expand({3, 4}).select(1, 2));
  grading::expect("x[2][3][4]", x[2][3][4]);
  grading::expect("x.select(1, 2).select(0, 1).storage_offset()", x.select(1, 2).select(0, 1).storage_offset());
}

TEST_CASE("select: indices and dims out of range are refused", "[ch01][ex2][pts=2]") {
  const kd::Tensor x = grading::input("x"), z = grading::input("z");
  grading::expect_error("x.select(0, 3)", [&] { (void)x.select(0, 3); });
  grading::expect_error("x.select(0, -4)", [&] { (void)x.select(0, -4); });
  grading::expect_error("x.select(1, 4)", [&] { (void)x.select(1, 4); });
  grading::expect_error("x.select(2, 0)", [&] { (void)x.select(2, 0); });
  grading::expect_error("z.select(0, 0) of a 0-d tensor", [&] { (void)z.select(0, 0); });
}
