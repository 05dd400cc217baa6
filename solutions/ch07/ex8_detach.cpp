// ch07.ex8 — find the bug: this program's loss falls more slowly than the others' and stops
// higher, and the gradient report says its first layer receives nothing. Find why, and repair it.
//
// Run it: `make scratch CH=07 ARGS=train_features` builds chapters/07-debugging/mine.cpp (from its
// template, the first time) on your library and runs it on a problem of its own: the loss every 50
// steps, and the accuracy reached on the training set and on held-out samples. Then `make grade CH=07`.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP), start_run()
// and run_steps() (backward, step and record after the step_loss this file gives).
#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::debug::find_the_bug {

Run train_features(const Problem& p) {
  Run run = start_run(p);
  MLP& model = *run.model;
  nn::CrossEntropyLoss criterion;
  optim::SGD opt(model.parameters(), {.lr = 0.5});
  run_steps(run, opt, "train_features", [&] {
    opt.zero_grad();
    // BEGIN SOLUTION ex8: a graph that reaches the first layer
    // hidden: [n, kHidden]. detach() would cut the graph here: backward would stop at the last
    // layer, and fc1 would keep its random initial weights for ever.
    Tensor hidden = model.relu(model.fc1(p.x));
    // STUB
    // // hidden: [n, kHidden], the features the last layer classifies, as plain values: only the
    // // last layer needs training (and no graph through fc1 saves memory)
    // Tensor hidden = model.relu(model.fc1(p.x)).detach();
    // END SOLUTION
    return criterion(model.fc2(hidden), p.y);
  });
  return run;
}

}  // namespace kindling::debug::find_the_bug
