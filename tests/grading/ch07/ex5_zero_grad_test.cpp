// ch07.ex5 — find the bug: debug::find_the_bug::train_steady must learn a network that holds up on
// samples it has not seen. Judged by outcome, outside this process (see ch07_grading.hpp): a perfect
// training loss is not enough; the held-out loss and accuracy of the network it returns must be good.
#include "ch07_grading.hpp"

using namespace ch07_grading;

// Summed gradients (steps that grow without end) drive the training loss to 0 and the weights far out:
// the held-out loss then explodes. The bounds are the twin's (pytorch.py).
TEST_CASE("train_steady: the loss falls and the held-out loss stays low", "[ch07][ex5][pts=10]") {
  report_run(ftb::train_steady(training_set()));
}

TEST_CASE("train_steady: the network classifies held-out samples well", "[ch07][ex5][pts=10]") {
  report_run(ftb::train_steady(training_set()));
}
