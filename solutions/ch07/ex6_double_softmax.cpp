// ch07.ex6 — find the bug: this program's loss creeps down and stops far above zero, and the loss
// it prints is not the one its network has. Find why, and repair it.
//
// Run it: `make scratch CH=07 ARGS=train_probabilities` builds chapters/07-debugging/mine.cpp (from its
// template, the first time) on your library and runs it on a problem of its own: the loss every 50
// steps, and the accuracy reached on the training set and on held-out samples. Then `make grade CH=07`.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP), start_run()
// and run_steps() (backward, step and record after the step_loss this file gives).
#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::debug::find_the_bug {

Run train_probabilities(const Problem& p) {
  Run run = start_run(p);
  MLP& model = *run.model;
  nn::CrossEntropyLoss criterion;
  optim::SGD opt(model.parameters(), {.lr = 0.5});
  run_steps(run, opt, "train_probabilities", [&] {
    opt.zero_grad();
    // logits: [n, classes]
    Tensor logits = model(p.x);
    // BEGIN SOLUTION ex6: CrossEntropyLoss takes the logits
    // CrossEntropyLoss applies log_softmax itself: give it the raw logits. Probabilities fed to it
    // get a second softmax, whose outputs lie within e^1 of each other, so the loss cannot fall
    // below about 0.74 and its gradients shrink.
    return criterion(logits, p.y);
    // STUB
    // // the network's answer as probabilities, [n, classes], each row summing to 1
    // Tensor probs = logits.softmax(1);
    // return criterion(probs, p.y);
    // END SOLUTION
  });
  return run;
}

}  // namespace kindling::debug::find_the_bug
