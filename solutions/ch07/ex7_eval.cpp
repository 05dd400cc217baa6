// ch07.ex7 — find the bug: this evaluation of a trained network reports a different accuracy each
// time it is asked, lower than the network deserves, and the network is not the same afterwards.
// Find why, and repair it.
//
// Run it: `make scratch CH=07 ARGS=evaluate` builds chapters/07-debugging/mine.cpp (from its
// template, the first time) on your library and prints what each call answers beside the network's
// true accuracy. Then `make grade CH=07`.
//
// Declared in kindling/debug/find_the_bug.hpp; the networks it is used on have BatchNorm and
// Dropout (DropoutMLP).
#include <algorithm>
#include <cstdint>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/debug/find_the_bug.hpp"

namespace kindling::debug::find_the_bug {

double evaluate(nn::Module& model, const Problem& p) {
  NoGradGuard no_grad;
  // BEGIN SOLUTION ex7: evaluation mode, and back to the mode the model was in
  // eval(): Dropout passes every unit through, BatchNorm normalises by its running statistics (and
  // leaves them alone). In train() mode each batch of 16 would be normalised by its own statistics,
  // half the units dropped at random, and the running statistics moved towards the held-out data.
  // The mode is part of the state the caller handed in: a training loop that evaluates between epochs
  // goes on in train() mode, so it is restored on the way out (a destructor: even if a batch throws).
  struct RestoreMode {
    nn::Module& model;
    bool training;
    ~RestoreMode() { model.train(training); }
  } restore{model, model.is_training()};
  model.eval();
  // STUB
  // END SOLUTION
  const std::int64_t n = p.x.size(0), batch = 16;
  double correct = 0;
  for (std::int64_t start = 0; start < n; start += batch) {
    const std::int64_t len = std::min(batch, n - start);
    // xb: [len, features], yb: [len]
    const Tensor xb = p.x.narrow(0, start, len), yb = p.y.narrow(0, start, len);
    correct += (model(xb).argmax(1) == yb).sum().item<double>();
  }
  return n == 0 ? 0.0 : correct / static_cast<double>(n);
}

}  // namespace kindling::debug::find_the_bug
