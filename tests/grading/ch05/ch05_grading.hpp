#pragma once
// Shared by chapter 5's graded tests. Expected values come from the library (kindling:: optimizers,
// losses and schedulers are parity-tested against PyTorch), never from numbers typed in here.
#include <catch2/catch.hpp>
#include <kindling/train.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "ch05/training_exercises.hpp"

namespace ch05_grading {
namespace kd = kindling;
namespace ex = kindling::exercises::ch05;

/// A fixed problem: parameters and a sequence of gradients per step, from a seeded generator.
struct Problem {
  std::vector<kd::Tensor> params;
  std::vector<std::vector<kd::Tensor>> grads;  // [step][param]
  Problem(int steps, std::uint64_t seed, kd::DType dtype = kd::kFloat32) {
    kd::Generator gen(seed);
    for (const kd::Shape& s : std::vector<kd::Shape>{{4, 3}, {3}, {2, 5}})
      params.push_back(kd::randn(s, {.dtype = dtype}, &gen).requires_grad_());
    for (int k = 0; k < steps; ++k) {
      std::vector<kd::Tensor> g;
      for (const auto& p : params) g.push_back(kd::randn(p.shape(), {.dtype = dtype}, &gen));
      grads.push_back(g);
    }
  }
  void feed(int k) {
    for (std::size_t i = 0; i < params.size(); ++i) params[i].set_grad(grads[k][i].clone());
  }
};

inline bool close(const kd::Tensor& a, const kd::Tensor& b, double rtol = 1e-5, double atol = 1e-6) {
  return a.shape() == b.shape() && kd::allclose(a.detach(), b.detach(), rtol, atol);
}

/// 20 features -> 5 classes, with Dropout so train()/eval() matter.
struct Net : kd::nn::Module {
  kd::nn::Linear fc1{20, 16};
  kd::nn::ReLU relu;
  kd::nn::Dropout drop{0.3};
  kd::nn::Linear fc2{16, 5};
  Net() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("drop", drop);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(drop(relu(fc1(x)))); }
};

inline kd::data::TensorDataset make_data(std::int64_t n, std::uint64_t seed) {
  kd::Generator gen(seed);
  kd::Tensor x = kd::randn({n, 20}, {}, &gen);
  kd::Tensor y = x.matmul(kd::randn({20, 5}, {}, &gen)).argmax(1);
  return kd::data::TensorDataset(x, y);
}

}  // namespace ch05_grading
