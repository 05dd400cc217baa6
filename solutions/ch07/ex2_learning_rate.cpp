// ch07.ex2 — find the bug: this program wanted to learn fast. Run it, read the loss it prints, find
// why it never learns, and repair it.
//
// Run it: `make scratch CH=07 ARGS=train_fast` builds chapters/07-debugging/mine.cpp (from its
// template, the first time) on your library and runs it on a problem of its own: the loss every 50
// steps, and the accuracy reached on the training set and on held-out samples. Then `make grade CH=07`.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP), start_run()
// and fit() (kSteps steps of full-batch gradient descent).
#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"

namespace kindling::debug::find_the_bug {

Run train_fast(const Problem& p) {
  Run run = start_run(p);
  // BEGIN SOLUTION ex2: a learning rate the loss can follow
  // lr 0.5: a step small enough that the loss falls (lr = 50 overshoots until the logits overflow)
  optim::SGD opt(run.model->parameters(), {.lr = 0.5});
  // STUB
  // optim::SGD opt(run.model->parameters(), {.lr = 50.0});  // big steps: learn fast
  // END SOLUTION
  fit(run, opt, p.x, p.y, "train_fast");
  return run;
}

}  // namespace kindling::debug::find_the_bug
