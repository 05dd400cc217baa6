// Chapter 6's milestone: your library trains SimpleNet on Fashion-MNIST in mixed precision -- the
// forward under AutocastGuard (float16), the loss scaled by your GradScaler (ex1's unscale and inf
// check, ex2's growth and backoff), the hidden layer checkpointed (ex3 recomputes it in backward).
// Two epochs of Adam; the program writes its trained weights and milestone.py evaluates them on the
// 10,000 test images, which this program never sees (IN_DIR holds the training set only).
//
//   milestone_ch06 IN_DIR OUT_DIR   (IN_DIR: the MNIST-format training files; writes OUT_DIR/<param>.npy)
#include <kindling/kindling.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

namespace kd = kindling;

struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  // x: [batch, 1, 28, 28] -> [batch, 10] logits; the hidden layer [batch, 128] is recomputed in backward
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = kd::utils::checkpoint([this](const kd::Tensor& t) { return relu(fc1(t)); },
                                         x.view({x.size(0), 784}));
    return fc2(h);
  }
};

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string in = argv[1], out = argv[2];
  kd::manual_seed(0);
  namespace T = kd::data::transforms;
  T::Compose transform({T::ToTensor(), T::Normalize({0.2860}, {0.3530})});
  kd::data::MNIST train_set(in, kd::data::Split::Train, transform);
  kd::data::DataLoader train_loader(train_set, {.batch_size = 64, .shuffle = true, .num_workers = 2});

  SimpleNet model;
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  kd::amp::GradScaler scaler;  // PyTorch's defaults: init_scale 65536, growth_interval 2000
  for (int epoch = 1; epoch <= 2; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    model.train();
    double total = 0;
    std::int64_t skipped = 0;
    for (auto& [images, labels] : train_loader) {
      optimizer.zero_grad();
      kd::Tensor loss;
      {
        kd::amp::AutocastGuard autocast({.dtype = kd::kFloat16});
        loss = criterion(model(images), labels);  // float16 matmuls, a float32 loss
      }
      scaler.scale(loss).backward();
      if (!scaler.step(optimizer)) ++skipped;  // an overflow: no step, a smaller scale
      scaler.update();
      total += loss.item<double>();
    }
    std::printf("epoch %d: train loss %.4f, %lld step(s) skipped, scale %g (%.1f s)\n", epoch,
                total / train_loader.size(), static_cast<long long>(skipped), scaler.get_scale(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // The trained weights, float32: the grader loads them into its own SimpleNet and evaluates it on the
  // test images.
  const std::pair<const char*, const kd::Tensor*> weights[] = {
      {"fc1.weight", &model.fc1.weight}, {"fc1.bias", &model.fc1.bias},
      {"fc2.weight", &model.fc2.weight}, {"fc2.bias", &model.fc2.bias}};
  for (const auto& [name, p] : weights) kd::save_npy(p->detach().to(kd::kFloat32), out + "/" + name + ".npy");
  std::printf("trained weights written to %s\n", out.c_str());
  return 0;
}
