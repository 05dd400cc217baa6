#pragma once
// What the chapter-6 programs share: a wider SimpleNet (so that its activations show in
// the memory figures) and a helper that prints bytes as MiB.
#include <cstdio>
#include <kindling/kindling.hpp>

namespace kd = kindling;

// [snippet: widenet]
struct WideNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 1024};
  kd::nn::ReLU relu1;
  kd::nn::Linear fc2{1024, 1024};
  kd::nn::ReLU relu2;
  kd::nn::Linear fc3{1024, 10};
  WideNet() {
    register_module("fc1", fc1);
    register_module("relu1", relu1);
    register_module("fc2", fc2);
    register_module("relu2", relu2);
    register_module("fc3", fc3);
  }
  // x: [batch, 784] -> [batch, 10] logits
  kd::Tensor forward(const kd::Tensor& x) override {
    return fc3(relu2(fc2(relu1(fc1(x)))));
  }
};
// [end]

/// Bytes as MiB, for the tables.
inline double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1 << 20); }
