// Chapter 5's milestone: your library — your tensors (chapter 1), modules (3), data pipeline (4), loss and
// optimizer (5) — trains SimpleNet on Fashion-MNIST. The program trains for three epochs with Adam and
// writes its trained weights; milestone.py evaluates them on the 10,000 test images, which this program
// never sees (IN_DIR holds the training set only).
//
//   milestone_ch05 IN_DIR OUT_DIR   (IN_DIR: the MNIST-format training files; writes OUT_DIR/<param>.npy)
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
  // x: [batch, 1, 28, 28] -> [batch, 10] logits
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x.view({x.size(0), 784})))); }
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
  for (int epoch = 1; epoch <= 3; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    model.train();
    double total = 0;
    for (auto& [images, labels] : train_loader) {
      optimizer.zero_grad();
      kd::Tensor loss = criterion(model(images), labels);
      loss.backward();
      optimizer.step();
      total += loss.item<double>();
    }
    std::printf("epoch %d: train loss %.4f (%.1f s)\n", epoch, total / train_loader.size(),
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
