#pragma once
// Shared by chapter 2's graded tests. A test builds a graph with the library -- whose backward runs
// through your pieces -- and reports the gradients by name; its PyTorch twin (pytorch.py) builds the
// same graph on the same inputs with torch, and says what each gradient must be.
#include <kindling/autograd.hpp>

#include <string>
#include <vector>

#include "grading.hpp"

namespace ch02_grading {
namespace kd = kindling;

/// Input `name` of the twin as a fresh leaf that requires grad.
inline kd::Tensor leaf(const std::string& name) { return grading::input(name).requires_grad_(true); }

/// Reports t.grad() as result `name` ("undefined" when there is none, so a missing gradient reads
/// as such instead of crashing the test).
inline void expect_grad(const std::string& name, const kd::Tensor& t) {
  if (t.grad().defined()) grading::expect(name, t.grad());
  else grading::expect(name, std::string("undefined"));
}

}  // namespace ch02_grading
