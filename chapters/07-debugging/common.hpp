#pragma once
// What the chapter-7 programs share: chapter 5's SimpleNet, small Fashion-MNIST subsets
// (the failures show up in seconds), and a one-line accuracy.
#include <cstdio>
#include <kindling/kindling.hpp>
#include <numeric>
#include <vector>

namespace kd = kindling;
namespace dbg = kd::debug;

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
  kd::Tensor forward(const kd::Tensor& x) override {
    return fc2(relu(fc1(x.view({x.size(0), 784}))));
  }
};

using Fashion = kd::data::FashionMNIST;
using FashionSubset = kd::data::Subset<Fashion>;

/// The first `n` images of a split, normalised like chapter 5's.
inline FashionSubset fashion_subset(kd::data::Split split, std::int64_t n) {
  namespace T = kd::data::transforms;
  Fashion all(split, T::Compose({T::ToTensor(), T::Normalize({0.2860}, {0.3530})}));
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  return FashionSubset(all, idx);
}

/// Accuracy of `model` on one batch, in percent.
inline double accuracy(kd::nn::Module& model, const kd::Tensor& x,
                       const kd::Tensor& y) {
  kd::NoGradGuard no_grad;
  kd::Tensor correct = (model(x).argmax(1) == y).sum();
  return 100.0 * correct.item<double>() / static_cast<double>(y.size(0));
}
