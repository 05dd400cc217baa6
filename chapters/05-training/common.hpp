#pragma once
// What every chapter-5 program shares: SimpleNet, the Fashion-MNIST datasets, and the
// evaluation loop. (The training loop itself is written out in each program — it is the
// point.)
#include <cstdio>
#include <kindling/kindling.hpp>
#include <string>

namespace kd = kindling;

// [snippet: simplenet]
struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  // x: [batch, 1, 28, 28] images (or already [batch, 784]) -> [batch, 10] logits
  kd::Tensor forward(const kd::Tensor& x) override {
    return fc2(relu(fc1(x.view({x.size(0), 784}))));
  }
};
// [end]

/// The loss and accuracy of `model` over a whole loader.
struct EvalResult {
  double loss = 0;
  double accuracy = 0;  // fraction in [0, 1]
};

// [snippet: eval-loop]
template <class Model, class Loader>
EvalResult evaluate(Model& model, Loader& loader) {
  model.eval();             // Dropout off, BatchNorm uses its running statistics
  kd::NoGradGuard no_grad;  // no graph: nothing will call backward()
  kd::nn::CrossEntropyLoss criterion;
  double total_loss = 0;
  std::int64_t correct = 0, seen = 0;
  for (auto& [images, labels] : loader) {
    const kd::Tensor& y = labels;       // [batch] int64 class indices
    kd::Tensor logits = model(images);  // [batch, 10]
    total_loss += criterion(logits, y).item<double>() * y.size(0);
    kd::Tensor predicted = logits.argmax(1);  // [batch]: the most likely class
    correct += (predicted == y).sum().item<std::int64_t>();
    seen += y.size(0);
  }
  return {total_loss / seen, static_cast<double>(correct) / seen};
}
// [end]

/// Fashion-MNIST with ToTensor: images [1, 28, 28] float32 in [0, 1], labels int64.
inline kd::data::FashionMNIST fashion(kd::data::Split split) {
  return kd::data::FashionMNIST(split, kd::data::transforms::ToTensor());
}

/// Reads `--name value` from the command line (the book passes shorter runs this way).
inline int int_flag(int argc, char** argv, const std::string& name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == "--" + name) return std::stoi(argv[i + 1]);
  return fallback;
}
