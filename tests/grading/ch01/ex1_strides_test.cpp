// ch01.ex1 — the strides of a new tensor (kindling::contiguous_strides) and Tensor::is_contiguous.
// Every result is compared with PyTorch's (pytorch.py) by the grader.
#include "ch01_grading.hpp"

using namespace ch01_grading;

TEST_CASE("strides: every new tensor is row-major", "[ch01][ex1][pts=3]") {
  for (const auto& shape : int_lists("shapes")) {
    const kd::Shape sh(shape.begin(), shape.end());
    grading::expect("zeros(" + str(shape) + ").strides()", kd::zeros(sh).strides());
    grading::expect("contiguous_strides(" + str(shape) + ")", kd::contiguous_strides(sh));
  }
}

TEST_CASE("strides: results of ops on row-major inputs", "[ch01][ex1][pts=2]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b"), x = grading::input("x");
  grading::expect("(a + b).strides()", (a + b).strides());
  grading::expect("(x * 2).strides()", (x * 2).strides());
  grading::expect("x.matmul(x.t()).strides()", x.matmul(x.t()).strides());
  grading::expect("x.t().contiguous().strides()", x.t().contiguous().strides());
}

TEST_CASE("is_contiguous: views in many layouts", "[ch01][ex1][pts=4]") {
  for (const auto& [name, v] : views()) grading::expect("is_contiguous: " + name, v.is_contiguous());
}

TEST_CASE("contiguous: a row-major tensor is returned as it is", "[ch01][ex1][pts=2]") {
  // contiguous() asks is_contiguous() first: a row-major tensor comes back as itself, anything else as a copy.
  for (const auto& [name, v] : views()) grading::expect("contiguous() shares storage: " + name, v.contiguous().shares_storage(v));
}
