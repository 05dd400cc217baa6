// ch07.ex2 — find the bug: this program wanted to learn fast. Run it (make grade CH=07), read the
// loss it prints, find why it never learns, and repair it.
//
// Declared in kindling/debug/find_the_bug.hpp, with the problem, the network (MLP) and accuracy().
#include <cmath>
#include <cstdio>

#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"
#include "kindling/tensor/random.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::debug::find_the_bug {

Run train_fast(const Problem& p) {
  manual_seed(0);
  Run run;
  run.model = std::make_shared<MLP>(p.x.size(1), 32, p.classes);
  MLP& model = *run.model;
  nn::CrossEntropyLoss criterion;
  // BEGIN SOLUTION ex2: a learning rate the loss can follow
  // lr 0.5: a step small enough that the loss falls (lr = 50 overshoots until the logits overflow)
  optim::SGD opt(model.parameters(), {.lr = 0.5});
  // STUB
  // optim::SGD opt(model.parameters(), {.lr = 50.0});  // big steps: learn fast
  // END SOLUTION
  // 200 steps of full-batch gradient descent
  for (int step = 0; step < 200; ++step) {
    opt.zero_grad();
    Tensor loss = criterion(model(p.x), p.y);
    loss.backward();
    opt.step();
    run.losses.push_back(loss.item<double>());
    if (step % 50 == 0) std::printf("train_fast: step %3d: loss %g\n", step, run.losses.back());
  }
  return run;
}

}  // namespace kindling::debug::find_the_bug
