#pragma once
// Shared by chapter 3's graded tests: module trees with the same structure as their PyTorch twins
// (pytorch.py), and small helpers.
#include <kindling/nn.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "grading.hpp"

namespace ch03_grading {
namespace kd = kindling;
namespace nn = kindling::nn;

template <class Pairs>
std::vector<std::string> names(const Pairs& pairs) {
  std::vector<std::string> out;
  for (const auto& [name, x] : pairs) out.push_back(name);
  return out;
}

/// Copies `value` into a parameter in place (the module keeps its tensor).
inline void set(kd::Tensor param, const kd::Tensor& value) {
  kd::NoGradGuard no_grad;
  param.copy_(value);
}

struct Block : nn::Module {
  nn::Linear fc{4, 4};
  nn::BatchNorm1d bn{4};
  Block() {
    register_module("fc", fc);
    register_module("bn", bn);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return bn(fc(x)); }
};

struct Net : nn::Module {
  kd::Tensor scale;
  Block a, b;
  nn::Linear head{4, 2};
  Net() {
    scale = register_parameter("scale", kd::ones({1}));
    register_module("a", a);
    register_module("b", b);
    register_module("head", head);
    register_buffer("steps", kd::zeros({1}));
  }
  kd::Tensor forward(const kd::Tensor& x) override { return head(b(a(x))) * scale; }
};

struct SimpleNet : nn::Module {
  nn::Linear fc1{784, 128};
  nn::ReLU relu;
  nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }
};

struct Shared : nn::Module {
  nn::Linear a{3, 3};
  Shared() {
    register_module("a", a);
    register_module("b", a);  // the same layer under a second name
  }
  kd::Tensor forward(const kd::Tensor& x) override { return a(x); }
};

struct Two : nn::Module {
  nn::Linear fc1{4, 3};
  nn::Linear fc2{3, 2};
  Two() {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(fc1(x).relu()); }
};

/// The twin's state dict inputs fc1_weight, ... as {"fc1.weight": ..., ...}.
inline kd::StateDict two_state_dict() {
  kd::StateDict sd;
  for (const std::string k : {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"}) {
    std::string key = k;
    key[key.find('_')] = '.';
    sd.insert(key, grading::input(k));
  }
  return sd;
}

}  // namespace ch03_grading
