#pragma once
// Shared by chapter 7's graded tests: the problem the find-the-bug programs learn (a "teacher" network
// labels Gaussian points; the classes are learnable by the MLP), made by the test itself, and the
// checks of "learning happened", measured on the trained network the program returns — never on
// numbers the program says about itself.
#include <cmath>
#include <cstdint>
#include <string>

#include <kindling/debug/find_the_bug.hpp>
#include <kindling/kindling.hpp>

#include "grading.hpp"

namespace ch07_grading {
namespace kd = kindling;
namespace ftb = kd::debug::find_the_bug;

constexpr std::int64_t kFeatures = 16, kClasses = 4;

/// n samples x: [n, 16] ~ N(0, 1), labelled by a fixed random teacher: y = argmax(x W + b), W [16, 4].
/// The same teacher for every seed; `seed` picks the samples (training and held-out sets differ).
inline ftb::Problem problem(std::int64_t n, std::uint64_t seed) {
  kd::manual_seed(2024);
  const kd::Tensor w = kd::randn({kFeatures, kClasses});
  const kd::Tensor b = kd::randn({kClasses}) * 0.5;
  kd::manual_seed(seed);
  ftb::Problem p;
  p.x = kd::randn({n, kFeatures});
  p.y = p.x.matmul(w).add(b).argmax(1);
  p.classes = kClasses;
  return p;
}

inline ftb::Problem training_set() { return problem(512, 1); }
inline ftb::Problem held_out_set() { return problem(1024, 7); }

/// The cross-entropy of the returned network on `p` (recomputed here, in eval() mode).
inline double loss_on(ftb::MLP& model, const ftb::Problem& p) {
  model.eval();
  kd::NoGradGuard no_grad;
  kd::nn::CrossEntropyLoss criterion;
  return criterion(model(p.x), p.y).item<double>();
}

/// The checks every find-the-bug program must pass: it returned its network; every loss it recorded is
/// finite; the network's own loss on the training set is below `max_loss`.
inline void check_learned(const ftb::Run& run, const ftb::Problem& train, double max_loss) {
  REQUIRE(run.model != nullptr);
  REQUIRE(!run.losses.empty());
  for (std::size_t i = 0; i < run.losses.size(); ++i) {
    INFO("the loss of step " << i << " is " << run.losses[i]);
    REQUIRE(std::isfinite(run.losses[i]));
  }
  const double loss = loss_on(*run.model, train);
  INFO("the trained network's loss on its training set is " << loss << " (learning happened below "
       << max_loss << "; a network that guesses has about " << std::log(double(kClasses)) << ")");
  REQUIRE(std::isfinite(loss));
  CHECK(loss < max_loss);
}

/// The trained network classifies held-out samples: accuracy at least `min_accuracy`, and a held-out
/// cross-entropy below `max_loss` (a network whose weights ran away is sure of its wrong answers too).
inline void check_generalises(const ftb::Run& run, double min_accuracy, double max_loss = 0.5) {
  REQUIRE(run.model != nullptr);
  const ftb::Problem test = held_out_set();
  const double acc = ftb::accuracy(*run.model, test.x, test.y);
  INFO("accuracy on 1024 held-out samples: " << acc << " (needed: " << min_accuracy << "; guessing: "
       << 1.0 / double(kClasses) << ")");
  CHECK(acc >= min_accuracy);
  const double loss = loss_on(*run.model, test);
  INFO("the network's loss on the held-out samples is " << loss << " (needed: below " << max_loss << ")");
  CHECK(loss < max_loss);
}

/// The loss the program recorded last is its network's cross-entropy on the training set (within
/// `tolerance`: one more step was taken after it). A program that records another quantity -- the
/// loss of probabilities, say -- fails here.
inline void check_records_its_loss(const ftb::Run& run, const ftb::Problem& train, double tolerance = 0.02) {
  REQUIRE(run.model != nullptr);
  REQUIRE(!run.losses.empty());
  const double loss = loss_on(*run.model, train);
  INFO("the program's last recorded loss is " << run.losses.back() << "; its network's cross-entropy on "
       "the training set is " << loss);
  CHECK(std::abs(run.losses.back() - loss) < tolerance);
}

}  // namespace ch07_grading
