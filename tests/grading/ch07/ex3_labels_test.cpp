// ch07.ex3 — find the bug: debug::find_the_bug::train_labels must learn (outcome only: a finite, low loss
// of the network it returns on its training set, and a good accuracy on held-out samples).
#include "ch07_grading.hpp"

using namespace ch07_grading;

TEST_CASE("train_labels: the loss stays finite and falls", "[ch07][ex3][pts=10]") {
  const ftb::Problem train = training_set();
  check_learned(ftb::train_labels(train), train, 0.35);
}

TEST_CASE("train_labels: the network classifies held-out samples", "[ch07][ex3][pts=10]") {
  check_generalises(ftb::train_labels(training_set()), 0.85);
}
