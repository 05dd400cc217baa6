// ch07.ex3 — find the bug: the loss of this program falls, and yet its network is wrong on almost
// every sample it has not seen. Find why, and repair it.
//
// Run it: `make scratch CH=07 ARGS=train_labels` builds chapters/07-debugging/mine.cpp (from its
// template, the first time) on your library and runs it on a problem of its own: the loss every 50
// steps, and the accuracy reached on the training set and on held-out samples. Then `make grade CH=07`.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP), start_run()
// and fit() (kSteps steps of full-batch gradient descent).
#include <cstdint>

#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"

namespace kindling::debug::find_the_bug {

Run train_labels(const Problem& p) {
  Run run = start_run(p);
  optim::SGD opt(run.model->parameters(), {.lr = 0.5});
  // targets: [n] int64, the class of every sample
  Tensor targets = p.y.clone();
  // BEGIN SOLUTION ex3: the labels as the problem gives them
  // p.y already holds 0..classes-1 (what CrossEntropyLoss expects): no shift
  // STUB
  // // the classes are numbered from 1: move them to 0..classes-1 (the last one wraps around)
  // std::int64_t* t = targets.data_ptr<std::int64_t>();
  // for (std::int64_t i = 0; i < targets.numel(); ++i) t[i] = t[i] == 0 ? p.classes - 1 : t[i] - 1;
  // END SOLUTION
  fit(run, opt, p.x, targets, "train_labels");
  return run;
}

}  // namespace kindling::debug::find_the_bug
