// ch07.ex9 — find the bug: this validation of a trained network reports a lower accuracy than the
// network has, and a different one each time it is asked about the same network. Find why, and
// repair it.
//
// Run it: `make scratch CH=07 ARGS=validate` builds chapters/07-debugging/mine.cpp (from its
// template, the first time) on your library and prints what each call answers beside the network's
// true accuracy. Then `make grade CH=07`.
//
// Declared in kindling/debug/find_the_bug.hpp, with augment(), the noise the training pipeline adds
// to every training batch.
#include "kindling/debug/find_the_bug.hpp"

namespace kindling::debug::find_the_bug {

double validate(nn::Module& model, const Problem& p) {
  // BEGIN SOLUTION ex9: validation data as it is
  // Augmentation is for training: it shows the network new variants of its samples. Validation
  // measures the network on the data it will meet, unchanged (random noise here would lower the
  // accuracy and make it differ from one call to the next).
  const Tensor x = p.x;  // x: [n, features]
  // STUB
  // const Tensor x = augment(p.x);  // the same pipeline as training
  // END SOLUTION
  return accuracy(model, x, p.y);  // in eval() mode, without gradients: the share classified right
}

}  // namespace kindling::debug::find_the_bug
