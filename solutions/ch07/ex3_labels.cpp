// ch07.ex3 — find the bug: the loss of this program falls, and yet its network is wrong on almost
// every sample it has not seen. Find why, and repair it.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP) and accuracy().
#include <cstdio>

#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"
#include "kindling/tensor/random.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::debug::find_the_bug {

Run train_labels(const Problem& p) {
  manual_seed(0);
  Run run;
  run.model = std::make_shared<MLP>(p.x.size(1), 32, p.classes);
  MLP& model = *run.model;
  nn::CrossEntropyLoss criterion;
  optim::SGD opt(model.parameters(), {.lr = 0.5});
  // targets: [n] int64, the class of every sample
  Tensor targets = p.y.clone();
  // BEGIN SOLUTION ex3: the labels as the problem gives them
  // p.y already holds 0..classes-1 (what CrossEntropyLoss expects): no shift
  // STUB
  // // the classes are numbered from 1: move them to 0..classes-1 (the last one wraps around)
  // std::int64_t* t = targets.data_ptr<std::int64_t>();
  // for (std::int64_t i = 0; i < targets.numel(); ++i) t[i] = t[i] == 0 ? p.classes - 1 : t[i] - 1;
  // END SOLUTION
  for (int step = 0; step < 200; ++step) {
    opt.zero_grad();
    Tensor loss = criterion(model(p.x), targets);
    loss.backward();
    opt.step();
    run.losses.push_back(loss.item<double>());
    if (step % 50 == 0) std::printf("train_labels: step %3d: loss %g\n", step, run.losses.back());
  }
  return run;
}

}  // namespace kindling::debug::find_the_bug
