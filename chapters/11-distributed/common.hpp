#pragma once
// What the chapter-11 programs share: chapter 5's two networks, and a few printing
// helpers.
#include <cstdio>
#include <kindling/distributed.hpp>
#include <kindling/kindling.hpp>
#include <string>
#include <vector>

namespace kd = kindling;
namespace dist = kd::distributed;

// Chapter 5's SimpleNet: [batch, 1, 28, 28] images -> [batch, 10] logits.
struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return fc2(relu(fc1(x.view({x.size(0), 784}))));
  }
};

// Chapter 5's CNN: two convolutions with pooling, then two linear layers.
struct CNN : kd::nn::Module {
  kd::nn::Conv2d conv1{1, 32, 3, {.padding = 1}};   // -> [batch, 32, 28, 28]
  kd::nn::Conv2d conv2{32, 64, 3, {.padding = 1}};  // -> [batch, 64, 14, 14]
  kd::nn::MaxPool2d pool{2};
  kd::nn::ReLU relu;
  kd::nn::Linear fc1{3136, 128};
  kd::nn::Linear fc2{128, 10};
  CNN() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("pool", pool);
    register_module("relu", relu);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = pool(relu(conv1(x)));  // [batch, 32, 14, 14]
    h = pool(relu(conv2(h)));             // [batch, 64, 7, 7]
    return fc2(relu(fc1(h.flatten(1))));  // [batch, 10]
  }
};

/// "[0, 4, 8]", as Python prints a list.
inline std::string list_str(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// The largest |a - b| over two lists of parameters.
inline double max_difference(const std::vector<kd::Tensor>& a,
                             const std::vector<kd::Tensor>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  return worst;
}

/// Reads `--name value` from the command line.
inline int int_flag(int argc, char** argv, const std::string& name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == "--" + name) return std::stoi(argv[i + 1]);
  return fallback;
}
