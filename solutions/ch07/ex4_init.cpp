// ch07.ex4 — find the bug: this program starts its network from a clean slate, and its loss
// hardly moves. Find why, and repair it.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP) and accuracy().
#include <cstdio>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"
#include "kindling/tensor/random.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::debug::find_the_bug {

Run train_from_scratch(const Problem& p) {
  manual_seed(0);
  Run run;
  run.model = std::make_shared<MLP>(p.x.size(1), 32, p.classes);
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
  nn::CrossEntropyLoss criterion;
  optim::SGD opt(model.parameters(), {.lr = 0.5});
  for (int step = 0; step < 200; ++step) {
    opt.zero_grad();
    Tensor loss = criterion(model(p.x), p.y);
    loss.backward();
    opt.step();
    run.losses.push_back(loss.item<double>());
    if (step % 50 == 0) std::printf("train_from_scratch: step %3d: loss %g\n", step, run.losses.back());
  }
  return run;
}

}  // namespace kindling::debug::find_the_bug
