#pragma once
// Shared by chapter 7's graded tests. The find-the-bug programs learn a problem their PyTorch twin drew
// for this grading run (tests/grading/ch07/pytorch.py: Gaussian points labelled by a random "teacher"
// network): the test hands the program the training set, and reports what the program produced -- the
// trained network's weights and the losses it recorded. The verdict is computed outside this process
// (scripts/grade_compare.py, judge_classifier): the network's loss on its training set, and its accuracy
// and loss on held-out samples of the same problem that this process never sees.
#include <cstdint>
#include <string>
#include <vector>

#include <kindling/debug/find_the_bug.hpp>
#include <kindling/kindling.hpp>

#include "grading.hpp"

namespace ch07_grading {
namespace kd = kindling;
namespace ftb = kd::debug::find_the_bug;

constexpr std::int64_t kClasses = 4;

/// A problem of the twin's: x [n, features] float32, y [n] int64 (inputs `<prefix>x`, `<prefix>y`).
inline ftb::Problem problem(const std::string& prefix = "") {
  ftb::Problem p;
  p.x = grading::input(prefix + "x");
  p.y = grading::input(prefix + "y");
  p.classes = kClasses;
  return p;
}

/// The training set of this run (what the find-the-bug programs learn from).
inline ftb::Problem training_set() { return problem(); }

/// Reports a trained MLP's four tensors as fc1.weight, fc1.bias, fc2.weight, fc2.bias.
inline void report_network(const ftb::MLP& model) {
  grading::expect("fc1.weight", model.fc1.weight.detach());
  grading::expect("fc1.bias", model.fc1.bias.detach());
  grading::expect("fc2.weight", model.fc2.weight.detach());
  grading::expect("fc2.bias", model.fc2.bias.detach());
}

/// Reports what a find-the-bug program produced: its network and every loss it recorded ("losses",
/// float64). Nothing is judged here: the grader evaluates the network outside this process.
inline void report_run(const ftb::Run& run) {
  REQUIRE(run.model != nullptr);
  report_network(*run.model);
  const auto n = static_cast<std::int64_t>(run.losses.size());
  grading::expect("losses", kd::tensor(run.losses, kd::Shape{n}));
}

/// Copies the twin's tensor `name` into `dst` (a parameter or buffer of a network the twin trained).
inline void load(kd::Tensor& dst, const std::string& name) {
  kd::NoGradGuard no_grad;
  const kd::Tensor src = grading::input(name);
  REQUIRE(src.sizes() == dst.sizes());
  dst.copy_(src.to(dst.dtype()));
}

/// Loads the twin's trained fc1 and fc2 (of an MLP or a DropoutMLP) into `model`.
template <class Net>
void load_linears(Net& model) {
  load(model.fc1.weight, "fc1.weight");
  load(model.fc1.bias, "fc1.bias");
  load(model.fc2.weight, "fc2.weight");
  load(model.fc2.bias, "fc2.bias");
}

}  // namespace ch07_grading
