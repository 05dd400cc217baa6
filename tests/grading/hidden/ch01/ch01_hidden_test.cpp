// Instructor-only tests for chapter 1 (not in the student handout): random views, twinned in
// hidden/ch01/pytorch.py, so that an answer tuned to the visible tests' layouts does not pass by luck.
#include "ch01_grading.hpp"

using namespace ch01_grading;

TEST_CASE("is_contiguous and strides of 120 random views (hidden)", "[ch01][ex1][pts=2][hidden]") {
  for (const auto& [name, v] : views()) {
    grading::expect("is_contiguous: " + name, v.is_contiguous());
    grading::expect("strides: " + name, v.strides());
  }
}

TEST_CASE("contiguous of 80 random bool and uint8 views (hidden)", "[ch01][ex4][pts=2][hidden]") {
  for (const std::string dt : {"bool", "uint8"}) {
    for (const auto& [name, v] : views(dt + "_")) grading::expect(dt + " contiguous(): " + name, v.contiguous());
  }
}

TEST_CASE("sum along every dim of 40 random views (hidden)", "[ch01][ex6][pts=2][hidden]") {
  for (const auto& [name, v] : views()) {
    for (std::int64_t d = 0; d < v.dim(); ++d) grading::expect("sum(" + std::to_string(d) + "): " + name, v.sum(d));
  }
}
