#pragma once
/// @file
/// What a graded test of a library-model chapter uses (tests/grading/chNN/*.cpp).
///
/// A graded test computes results *with the library* — which, in the program the grader runs, holds the
/// learner's piece — and reports them by name:
///
///     TEST_CASE("softmax: every dim of a float32 batch", "[ch01][ex5][pts=3]") {
///       const kd::Tensor x = grading::input("x");
///       for (std::int64_t d : {0, 1}) grading::expect("softmax(x, " + std::to_string(d) + ")", kd::softmax(x, d));
///     }
///
/// Its twin of the same name in tests/grading/chNN/pytorch.py made the inputs and computed, with PyTorch,
/// what every reported name must be. The grader compares the two *outside this process* (the expected
/// values never enter it): shape, dtype and values within the twin's tolerance, integers and booleans
/// exactly, and an error where PyTorch raises one. Checks PyTorch cannot express (an error message that
/// names both shapes, say) stay ordinary Catch2 assertions in the test; a test passes when both agree.
#include <catch2/catch.hpp>
#include <kindling/tensor.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <ranges>
#include <string>
#include <vector>

namespace grading {
namespace kd = kindling;

/// The input `name` this test's PyTorch twin made (an .npy the grader hands the test).
kd::Tensor input(const std::string& name);
/// A text input of the twin (e.g. the list of view programs both sides apply).
std::string input_text(const std::string& name);

/// Reports `value` as this test's result `name` (compared with the twin's result of the same name).
void expect(const std::string& name, const kd::Tensor& value);
void expect_ints(const std::string& name, const std::vector<std::int64_t>& value);
void expect(const std::string& name, bool value);
void expect(const std::string& name, std::int64_t value);
void expect(const std::string& name, double value);
void expect(const std::string& name, const std::string& value);
void expect(const std::string& name, const std::vector<std::string>& value);
inline void expect(const std::string& name, int value) { expect(name, static_cast<std::int64_t>(value)); }
inline void expect(const std::string& name, const char* value) { expect(name, std::string(value)); }
/// Shapes, strides, index lists: any range of integers.
template <class R>
  requires std::ranges::range<R> && std::integral<std::ranges::range_value_t<R>>
void expect(const std::string& name, const R& ints) {
  expect_ints(name, std::vector<std::int64_t>(std::ranges::begin(ints), std::ranges::end(ints)));
}

/// Runs `f` and reports which kindling::Error it threw (or that it threw none) as result `name`; the
/// twin says PyTorch raises there, or not. Returns the message (empty without an error) for further
/// checks. A kindling::NotImplemented is not caught: the exercise is simply not done yet.
std::string expect_error(const std::string& name, const std::function<void()>& f);

/// "float32 tensor of shape [2, 3]" (and its values when there are few), for messages and INFO().
std::string describe(const kd::Tensor& t);
/// "[2, 3]" for any list of integers.
std::string ints_str(const std::vector<std::int64_t>& v);

}  // namespace grading

// Catch2 prints these in a failed assertion's expansion: a dtype reads `float64`, not `1 == 2`, and a
// shape reads `[2, 3]`.
namespace Catch {
template <> struct StringMaker<kindling::DType> {
  static std::string convert(kindling::DType d) { return kindling::dtype_name(d); }
};
template <> struct StringMaker<kindling::Tensor> {
  static std::string convert(const kindling::Tensor& t) { return grading::describe(t); }
};
template <> struct StringMaker<std::vector<std::int64_t>> {
  static std::string convert(const std::vector<std::int64_t>& v) { return grading::ints_str(v); }
};
}  // namespace Catch
