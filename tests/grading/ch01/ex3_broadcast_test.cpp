// ch01.ex3 — broadcasting: kindling::broadcast_shapes and Tensor::expand (detail::expand_view).
#include "ch01_grading.hpp"

using namespace ch01_grading;

namespace {
/// "3 1 -1 4" -> {3, 1} and {4}: two lists split at the marker.
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> split(const std::vector<std::int64_t>& v, std::int64_t mark) {
  const auto it = std::find(v.begin(), v.end(), mark);
  return {std::vector<std::int64_t>(v.begin(), it), std::vector<std::int64_t>(it + 1, v.end())};
}
kd::Shape shape(const std::vector<std::int64_t>& v) { return kd::Shape(v.begin(), v.end()); }
}  // namespace

TEST_CASE("broadcast_shapes: pairs of shapes", "[ch01][ex3][pts=3]") {
  for (const auto& line : int_lists("pairs")) {
    const auto [a, b] = split(line, -1);
    grading::expect("broadcast_shapes(" + str(a) + ", " + str(b) + ")", kd::broadcast_shapes(shape(a), shape(b)));
    grading::expect("(zeros(" + str(a) + ") + zeros(" + str(b) + ")).shape()",
                    (kd::zeros(shape(a)) + kd::zeros(shape(b))).shape());
  }
}

TEST_CASE("broadcast_shapes: shapes that cannot broadcast are refused", "[ch01][ex3][pts=2]") {
  for (const auto& line : int_lists("pairs")) {
    const auto [a, b] = split(line, -1);
    const std::string msg = grading::expect_error("broadcast_shapes(" + str(a) + ", " + str(b) + ")",
                                                  [&] { (void)kd::broadcast_shapes(shape(a), shape(b)); });
    INFO("the error should name both shapes, as shape_str writes them: " << msg);
    CHECK((msg.find(kd::shape_str(shape(a))) != std::string::npos && msg.find(kd::shape_str(shape(b))) != std::string::npos));
    grading::expect_error("zeros(" + str(a) + ") * zeros(" + str(b) + ")",
                          [&] { (void)(kd::zeros(shape(a)) * kd::zeros(shape(b))); });
  }
}

TEST_CASE("expand: the view's shape, strides and values", "[ch01][ex3][pts=3]") {
  const auto cases = int_lists("cases");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto [a, b] = split(cases[k], -9);
    const kd::Tensor v = grading::input("x_" + std::to_string(k)).expand(shape(b));
    grading::expect("zeros-like " + str(a) + ".expand(" + str(b) + ")", v);
    grading::expect(str(a) + ".expand(" + str(b) + ").strides()", v.strides());
  }
}

TEST_CASE("expand: sizes it cannot reach are refused", "[ch01][ex3][pts=2]") {
  const auto cases = int_lists("cases");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto [a, b] = split(cases[k], -9);
    const kd::Tensor x = grading::input("x_" + std::to_string(k));
    grading::expect_error(str(a) + ".expand(" + str(b) + ")", [&] { (void)x.expand(shape(b)); });
  }
}

TEST_CASE("broadcasting: arithmetic on broadcast shapes", "[ch01][ex3][pts=2]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b"), c = grading::input("c");
  grading::expect("a + b", a + b);
  grading::expect("a * b", a * b);
  grading::expect("c - a", c - a);
  grading::expect("b / 2 + c", b / 2 + c);
  grading::expect("maximum(a, c)", kd::maximum(a, c));
}
