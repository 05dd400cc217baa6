// ch07.ex7 — find the bug: debug::find_the_bug::evaluate must report the accuracy the network has in
// evaluation mode, the same every time, and leave the network as it found it. The network is one the
// PyTorch twin trained for this grading run (a DropoutMLP, pytorch.py); the test loads it, asks
// evaluate() and reports the answers and the network's state afterwards; the grader compares them with
// PyTorch's eval()-mode accuracy and the state it handed in, outside this process.
#include <string>

#include "ch07_grading.hpp"

using namespace ch07_grading;

namespace {

/// The twin's trained DropoutMLP: its parameters and BatchNorm's running statistics, in train() mode (as a
/// training loop leaves it between epochs).
std::shared_ptr<ftb::DropoutMLP> trained_network() {
  const kd::Tensor w1 = grading::input("fc1.weight"), w2 = grading::input("fc2.weight");
  auto model = std::make_shared<ftb::DropoutMLP>(w1.size(1), w1.size(0), w2.size(0));
  load_linears(*model);
  load(model->bn.weight, "bn.weight");
  load(model->bn.bias, "bn.bias");
  load(model->bn.running_mean, "bn.running_mean");
  load(model->bn.running_var, "bn.running_var");
  load(model->bn.num_batches_tracked, "bn.num_batches_tracked");
  model->train();
  return model;
}

}  // namespace

TEST_CASE("evaluate: the reported accuracy is the network's own, every time", "[ch07][ex7][pts=10]") {
  auto model = trained_network();
  const ftb::Problem test = problem("held_out_");
  for (int call = 1; call <= 3; ++call) {
    model->train();  // as a training loop leaves it between epochs
    grading::expect("evaluate(), call " + std::to_string(call), ftb::evaluate(*model, test));
  }
}

TEST_CASE("evaluate: the network is the same afterwards", "[ch07][ex7][pts=10]") {
  auto model = trained_network();
  const ftb::Problem test = problem("held_out_");
  grading::expect("evaluate()", ftb::evaluate(*model, test));
  // What evaluate() left: BatchNorm updates its running statistics in train() mode.
  grading::expect("after: bn.running_mean", model->bn.running_mean.detach());
  grading::expect("after: bn.running_var", model->bn.running_var.detach());
  grading::expect("after: bn.num_batches_tracked", model->bn.num_batches_tracked.detach());
  grading::expect("after: fc1.weight", model->fc1.weight.detach());
  grading::expect("after: fc2.weight", model->fc2.weight.detach());
  // ...and its mode: a training loop that calls evaluate() between epochs goes on training in train() mode.
  grading::expect("after: still in train() mode", model->is_training());
}
