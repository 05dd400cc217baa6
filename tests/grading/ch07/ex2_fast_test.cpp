// ch07.ex2 — find the bug: debug::find_the_bug::train_fast must learn. Judged by outcome, outside this
// process: the network it returns must have a low loss on its training set and classify held-out samples
// of the same problem (which this process never sees) well; every loss it recorded must be finite. See
// ch07_grading.hpp and the twins in pytorch.py.
#include "ch07_grading.hpp"

using namespace ch07_grading;

TEST_CASE("train_fast: the loss stays finite and falls", "[ch07][ex2][pts=10]") {
  report_run(ftb::train_fast(training_set()));
}

TEST_CASE("train_fast: the network classifies held-out samples", "[ch07][ex2][pts=10]") {
  report_run(ftb::train_fast(training_set()));
}
