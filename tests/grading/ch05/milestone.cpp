// Chapter 5's milestone: your library — your tensors (chapter 1), modules (3), data pipeline (4), loss and
// optimizer (5) — trains SimpleNet on Fashion-MNIST. The program trains for three epochs with Adam and
// writes its trained weights; milestone.py evaluates them on the 10,000 test images, which this program
// never sees (IN_DIR holds the training set only).
//
// Accuracy alone would pass pieces that are wrong where this run does not go (SGD's first step with
// dampening, Adam's bias correction at the start, a plateau scheduler's cooldown, a metric on logits
// of another shape), so the program also runs each piece on the checker's numbers, drawn per run, and
// writes what it did; milestone.py computes the same with PyTorch and compares:
//   sgd_steps.npy, adam_steps.npy   a parameter after each of a few steps of SGD (momentum, dampening,
//                                   weight decay) and of Adam, on the checker's gradients (ex1, ex2)
//   plateau_lrs.npy                 the lr after each metric of the checker's fed to ReduceLROnPlateau
//                                   with a cooldown (ex3)
//   correct.npy                     count_correct of the trained network on the checker's rows (ex4)
//
//   milestone_ch05 IN_DIR OUT_DIR   (IN_DIR: the MNIST-format training files and the checker's probe_*.npy;
//                                    writes OUT_DIR/<param>.npy and the files above)
#include "milestone_main.hpp"
#include <kindling/kindling.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

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

int run(const std::string& in, const std::string& out);
int main(int argc, char** argv) { return milestone::main_of(argc, argv, run); }

int run(const std::string& in, const std::string& out) {
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

  // The probes, on the checker's numbers.
  auto load = [&](const char* name, kd::DType dtype) { return kd::load_npy(in + "/" + name + ".npy", dtype); };
  const kd::Tensor cfg = load("probe_config", kd::kFloat64);
  auto c = [&](std::int64_t i) { return cfg[i].item<double>(); };
  const kd::Tensor start = load("probe_param", kd::kFloat32), grads = load("probe_grads", kd::kFloat32);
  // A few steps of an optimizer on one parameter, the checker's gradient at each: the parameter after each.
  auto steps = [&](kd::optim::Optimizer& opt, kd::Tensor& w) {
    std::vector<kd::Tensor> after;
    for (std::int64_t s = 0; s < grads.size(0); ++s) {
      w.set_grad(grads[s].clone());
      opt.step();
      after.push_back(w.detach().clone());
    }
    return kd::stack(after);
  };
  {
    kd::Tensor w = start.clone().requires_grad_();
    kd::optim::SGD sgd({w}, {.lr = c(0), .momentum = c(1), .dampening = c(2), .weight_decay = c(3)});
    kd::save_npy(steps(sgd, w), out + "/sgd_steps.npy");
  }
  {
    kd::Tensor w = start.clone().requires_grad_();
    kd::optim::Adam adam({w}, {.lr = c(4), .betas = {c(5), c(6)}, .eps = c(7), .weight_decay = c(8)});
    kd::save_npy(steps(adam, w), out + "/adam_steps.npy");
  }
  {
    kd::Tensor w = start.clone().requires_grad_();
    kd::optim::SGD sgd({w}, {.lr = 1.0});
    kd::optim::ReduceLROnPlateau plateau(sgd, {.factor = c(9), .patience = static_cast<std::int64_t>(c(10)),
                                               .cooldown = static_cast<std::int64_t>(c(11))});
    const kd::Tensor metrics = load("probe_metrics", kd::kFloat64);
    std::vector<double> lrs;
    for (std::int64_t e = 0; e < metrics.numel(); ++e) {
      plateau.step(metrics[e].item<double>());
      lrs.push_back(sgd.lr());
    }
    kd::save_npy(kd::tensor(lrs, {static_cast<std::int64_t>(lrs.size())}), out + "/plateau_lrs.npy");
  }
  {
    model.eval();
    kd::NoGradGuard no_grad;
    const kd::Tensor x = load("probe_x", kd::kFloat32), y = load("probe_y", kd::kInt64);
    const std::int64_t correct = kd::train::count_correct(model(x.view({x.size(0), 1, 28, 28})), y);
    kd::save_npy(kd::tensor(std::vector<double>{static_cast<double>(correct)}, {1}), out + "/correct.npy");
  }
  std::printf("the probes of SGD, Adam, ReduceLROnPlateau and count_correct written\n");
  return 0;
}
