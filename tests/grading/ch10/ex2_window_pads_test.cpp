// ch10.ex2 — onnx::detail::window_pads: SAME_UPPER / SAME_LOWER / VALID / NOTSET against ONNX's own
// reference (onnx.backend.test.case.node.pool_op_common, which made the conformance data), and a
// convolution padded by it against PyTorch's.
#include "ch10_grading.hpp"

using namespace ch10_grading;
namespace onnx_detail = kd::onnx::detail;

namespace {
// One row of the twin's configurations: in_h in_w k_h k_w s_h s_w d_h d_w.
std::array<std::int64_t, 4> pads_of(const std::string& mode, const std::vector<std::int64_t>& c,
                                    std::size_t at, const std::vector<std::int64_t>& given = {}) {
  return onnx_detail::window_pads(mode, given, {c[at], c[at + 1]}, {c[at + 2], c[at + 3]},
                                  {c[at + 4], c[at + 5]}, {c[at + 6], c[at + 7]});
}
std::vector<std::int64_t> vec(const std::array<std::int64_t, 4>& p) { return {p.begin(), p.end()}; }
}  // namespace

TEST_CASE("window pads: SAME_UPPER and SAME_LOWER, with strides and dilations", "[ch10][ex2][pts=8]") {
  const auto c = ints_of("configs");
  for (std::size_t at = 0; at + 7 < c.size(); at += 8)
    for (const char* mode : {"SAME_UPPER", "SAME_LOWER"})
      grading::expect_ints(std::string(mode) + " config " + std::to_string(at / 8), vec(pads_of(mode, c, at)));
}

TEST_CASE("window pads: NOTSET takes the pads as given, VALID has none", "[ch10][ex2][pts=4]") {
  const auto c = ints_of("config");
  const auto given = ints_of("pads");
  grading::expect_ints("NOTSET with pads", vec(pads_of("NOTSET", c, 0, given)));
  grading::expect_ints("NOTSET without pads", vec(pads_of("NOTSET", c, 0)));
  grading::expect_ints("VALID", vec(pads_of("VALID", c, 0)));
}

TEST_CASE("window pads: a SAME_LOWER strided convolution, padded by them", "[ch10][ex2][pts=3]") {
  const kd::Tensor x = grading::input("x"), w = grading::input("w");  // [N, C, H, W], [O, C, kh, kw]
  const auto s = ints_of("stride");
  const auto p = onnx_detail::window_pads("SAME_LOWER", {}, {x.size(2), x.size(3)}, {w.size(2), w.size(3)},
                                          {s[0], s[1]}, {1, 1});
  // zeros around x: p[0] rows above, p[2] below, p[1] columns left, p[3] right
  kd::Tensor padded = kd::zeros({x.size(0), x.size(1), x.size(2) + p[0] + p[2], x.size(3) + p[1] + p[3]},
                                {.dtype = x.dtype()});
  padded.slice(2, p[0], p[0] + x.size(2)).slice(3, p[1], p[1] + x.size(3)).copy_(x);
  grading::expect("conv2d of the padded input", F::conv2d(padded, w, kd::Tensor(), {s[0], s[1]}));
}
