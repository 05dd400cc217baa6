// ch07.ex4 — find the bug: this program starts its network from a clean slate, and its loss
// hardly moves. Find why, and repair it.
//
// Run it: `make scratch CH=07 ARGS=train_from_scratch` builds chapters/07-debugging/mine.cpp (from its
// template, the first time) on your library and runs it on a problem of its own: the loss every 50
// steps, and the accuracy reached on the training set and on held-out samples. Then `make grade CH=07`.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP), start_run()
// and fit() (kSteps steps of full-batch gradient descent).
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"

namespace kindling::debug::find_the_bug {

Run train_from_scratch(const Problem& p) {
  Run run = start_run(p);
  MLP& model = *run.model;
  // BEGIN SOLUTION ex4: an initialisation that lets gradients flow
  // Linear's default initialisation (uniform in +-1/sqrt(in)) gives every hidden unit its own
  // weights: keep it. All-zero weights give ReLU(0) = 0 hidden units and zero gradients.
  // STUB
  // // start every run from the same clean state
  // {
  //   NoGradGuard no_grad;
  //   for (Tensor& w : model.parameters()) w.zero_();
  // }
  // END SOLUTION
  optim::SGD opt(model.parameters(), {.lr = 0.5});
  fit(run, opt, p.x, p.y, "train_from_scratch");
  return run;
}

}  // namespace kindling::debug::find_the_bug
