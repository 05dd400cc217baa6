// Chapter 3 — train() vs eval(). Dropout drops (and rescales) only in training;
// BatchNorm normalises with the batch's statistics in training, updating its running
// averages, and with those running averages in evaluation. The same input gives
// different outputs in the two modes.
#include <kindling/nn.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  kd::manual_seed(0);
  std::cout.precision(4);
  // [snippet: dropout]
  kd::nn::Dropout dropout(0.5);
  kd::Tensor x = kd::ones({2, 6});
  dropout.train();
  std::cout << "train(): " << dropout(x) << "\n";  // zeros; survivors scaled by 2
  dropout.eval();
  std::cout << "eval():  " << dropout(x) << "\n";  // the identity
  // [end]

  // [snippet: batchnorm]
  kd::nn::BatchNorm1d bn(3);
  std::cout << "running_mean " << bn.running_mean << "\nrunning_var  " << bn.running_var
            << "\n";
  bn.train();
  for (int step = 1; step <= 3; ++step) {
    // features with mean ≈ 5, variance ≈ 4
    kd::Tensor batch = kd::randn({16, 3}) * 2.0 + 5.0;
    bn(batch);  // training forward updates the buffers
    std::cout << "after batch " << step << ": running_mean " << bn.running_mean
              << ", batches " << bn.num_batches_tracked.item<std::int64_t>() << "\n";
  }
  // [end]

  // [snippet: batchnorm-modes]
  kd::Tensor sample = kd::full({4, 3}, 5.0);  // four identical rows
  bn.train();
  std::cout << "train() output row 0: " << bn(sample)[0]
            << "   (a batch with no variance)\n";
  bn.eval();
  kd::Tensor before = bn.running_mean.clone();
  std::cout << "eval()  output row 0: " << bn(sample)[0] << "\n";
  std::cout << "eval() changed the running mean: " << std::boolalpha
            << !kd::equal(before, bn.running_mean) << "\n";
  // [end]
}
