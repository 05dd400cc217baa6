// ch07.ex6 — find the bug: debug::find_the_bug::train_probabilities must learn at full speed and record
// its network's real loss. Judged by outcome, outside this process (see ch07_grading.hpp): the network it
// returns, evaluated by the grader, and the last loss it recorded against that network's own loss.
#include "ch07_grading.hpp"

using namespace ch07_grading;

// Through a second softmax the gradients shrink and 200 steps leave the training loss about twice as
// high as the repaired program's: the twin's bound sits between the two.
TEST_CASE("train_probabilities: the loss falls fast and the network generalises", "[ch07][ex6][pts=10]") {
  report_run(ftb::train_probabilities(training_set()));
}

TEST_CASE("train_probabilities: the loss it records is its network's", "[ch07][ex6][pts=10]") {
  report_run(ftb::train_probabilities(training_set()));
}
