// P1 peer: the seed's SimpleNet training step in LibTorch 1.13 (1 thread), on Fashion-MNIST batches
// of 32 taken in order from memory. Prints "steps_per_s=<x> final_loss=<y>".
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "idx_reader.hpp"

struct SimpleNet : torch::nn::Module {
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  SimpleNet() {
    fc1 = register_module("fc1", torch::nn::Linear(784, 128));
    fc2 = register_module("fc2", torch::nn::Linear(128, 10));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
};

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  const char* dir = argc > 2 ? argv[2] : "/usr/share/datasets/fashion-mnist";
  torch::set_num_threads(1);
  torch::manual_seed(0);
  std::vector<float> images;
  std::vector<std::int64_t> labels;
  std::int64_t n = 0;
  peers::load_fashion_mnist(dir, images, labels, n);
  auto X = torch::from_blob(images.data(), {n, 784}, torch::kFloat32);
  auto Y = torch::from_blob(labels.data(), {n}, torch::kInt64);
  SimpleNet model;
  torch::optim::Adam optimizer(model.parameters(), torch::optim::AdamOptions(1e-3));
  torch::nn::CrossEntropyLoss criterion;
  const std::int64_t batch = 32, batches = n / batch;
  auto run = [&](int count) {
    double last = 0;
    for (int s = 0; s < count; ++s) {
      const std::int64_t b = s % batches;
      auto inputs = X.narrow(0, b * batch, batch);
      auto targets = Y.narrow(0, b * batch, batch);
      optimizer.zero_grad();
      auto loss = criterion(model.forward(inputs), targets);
      loss.backward();
      optimizer.step();
      last = loss.item<double>();
    }
    return last;
  };
  run(std::max(20, steps / 20));  // warm-up
  auto t0 = std::chrono::steady_clock::now();
  double loss = run(steps);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("steps_per_s=%.1f final_loss=%.4f\n", steps / secs, loss);
}
