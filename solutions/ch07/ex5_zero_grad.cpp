// ch07.ex5 — find the bug: this program's training loss falls to zero faster than anyone else's,
// and its network is sure of many wrong answers on samples it has not seen (a held-out loss of 75).
// Its learning rate is the one that works elsewhere. Find why, and repair it.
//
// Run it: `make scratch CH=07 ARGS=train_steady` builds chapters/07-debugging/mine.cpp (from its
// template, the first time) on your library and runs it on a problem of its own: the loss every 50
// steps, and the accuracy reached on the training set and on held-out samples. Then `make grade CH=07`.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP), start_run()
// and run_steps() (backward, step and record after the step_loss this file gives).
#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::debug::find_the_bug {

Run train_steady(const Problem& p) {
  Run run = start_run(p);
  MLP& model = *run.model;
  nn::CrossEntropyLoss criterion;
  optim::SGD opt(model.parameters(), {.lr = 0.5});
  run_steps(run, opt, "train_steady", [&] {
    // BEGIN SOLUTION ex5: one step's gradient at a time
    // backward() adds into .grad (so that gradients of several losses can be summed); without
    // zero_grad each step would follow the sum of every gradient so far.
    opt.zero_grad();
    // STUB
    // END SOLUTION
    return criterion(model(p.x), p.y);
  });
  return run;
}

}  // namespace kindling::debug::find_the_bug
