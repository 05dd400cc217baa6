// The automatic-mixed-precision loop: autocast around the forward pass and the loss,
// GradScaler around backward and the step. SimpleNet on Fashion-MNIST, 300 steps in
// float32 and 300 under bfloat16 autocast, from the same weights and batches: time per
// step, peak memory of a step, test accuracy; then the activations a forward keeps, and
// which kernel multiplied the bfloat16 matrices.
#include <chrono>
#include <vector>

#include "common.hpp"

namespace amp = kd::amp;
namespace mem = kd::memory;

struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override {  // x: [batch, 784]
    return fc2(relu(fc1(x)));
  }
};

using Batch = std::pair<kd::Tensor, kd::Tensor>;

// The first `n` batches of 64 of a split, as [64, 784] floats in [0, 1] and labels.
std::vector<Batch> batches(kd::data::Split split, std::size_t n) {
  auto set = kd::data::FashionMNIST(split, kd::data::transforms::ToTensor());
  kd::data::DataLoader loader(set, {.batch_size = 64});
  std::vector<Batch> out;
  for (auto& [images, labels] : loader) {
    if (out.size() == n) break;
    out.push_back({images.view({images.size(0), 784}), labels});
  }
  return out;
}

int main() {
  const std::vector<Batch> train = batches(kd::data::Split::Train, 300);
  const std::vector<Batch> test = batches(kd::data::Split::Test, 40);  // 2,560 images
  kd::nn::CrossEntropyLoss criterion;

  auto run = [&](bool use_amp) {
    kd::manual_seed(0);
    SimpleNet model;
    kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
    // [snippet: amp-loop]
    amp::GradScaler scaler({.enabled = use_amp});
    for (int epoch = 0; epoch < 1; ++epoch) {
      for (const auto& [inputs, labels] : train) {
        optimizer.zero_grad();
        kd::Tensor loss;
        {
          amp::AutocastGuard autocast({.dtype = kd::kBFloat16, .enabled = use_amp});
          kd::Tensor outputs = model(inputs);  // bfloat16 logits under autocast
          loss = criterion(outputs, labels);   // float32: losses leave autocast
        }
        scaler.scale(loss).backward();  // outside the region, as in PyTorch
        scaler.step(optimizer);         // unscale_, skip if inf/NaN, step
        scaler.update();
      }
    }
    // [end]
    // 100 more steps, timed, with the peak memory above what the model holds.
    mem::reset_peak_memory_stats();
    const std::size_t base = mem::memory_allocated();
    const auto start = std::chrono::steady_clock::now();
    const int steps = 100;
    for (int i = 0; i < steps; ++i) {
      const auto& [inputs, labels] = train[i];
      optimizer.zero_grad();
      kd::Tensor loss;
      {
        amp::AutocastGuard autocast({.dtype = kd::kBFloat16, .enabled = use_amp});
        loss = criterion(model(inputs), labels);
      }
      scaler.scale(loss).backward();
      scaler.step(optimizer);
      scaler.update();
    }
    const double us = std::chrono::duration<double, std::micro>(
                          std::chrono::steady_clock::now() - start)
                          .count() /
                      steps;
    const std::size_t peak = mem::max_memory_allocated() - base;
    std::int64_t correct = 0, seen = 0;
    {
      kd::NoGradGuard no_grad;
      amp::AutocastGuard autocast({.dtype = kd::kBFloat16, .enabled = use_amp});
      for (const auto& [inputs, labels] : test) {
        correct += (model(inputs).argmax(1) == labels).sum().item<std::int64_t>();
        seen += labels.size(0);
      }
    }
    std::printf("%-18s %8.1f us/step %8.1f KiB peak %8.2f %% test accuracy\n",
                use_amp ? "bfloat16 autocast:" : "float32:", us, peak / 1024.0,
                100.0 * correct / seen);
  };
  run(false);
  run(true);

  std::printf("\nactivations a forward of WideNet keeps, batch 1024:\n");
  // [snippet: activations]
  kd::manual_seed(0);
  WideNet wide;
  const kd::Tensor x = kd::rand({1024, 784});
  for (bool use_amp : {false, true}) {
    const std::size_t base = mem::memory_allocated();
    amp::AutocastGuard autocast({.dtype = kd::kBFloat16, .enabled = use_amp});
    kd::Tensor logits = wide(x);
    std::printf("  %-18s %6.2f MiB\n", use_amp ? "bfloat16 autocast:" : "float32:",
                mib(mem::memory_allocated() - base));
  }
  // [end]
  // The kernel behind every bfloat16 matrix product above: the speed depends on it.
  std::printf("\nbfloat16 GEMM: %s\n", kd::bfloat16_gemm_backend().c_str());
}
