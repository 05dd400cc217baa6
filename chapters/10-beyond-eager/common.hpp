#pragma once
// What the chapter-10 programs share: chapter 5's small CNN (the model exported to
// ONNX), two models for kd::compile — one made of elementwise ops only, and the MLP
// block of BENCH P9 — and a timer that measures two versions of a computation fairly on
// a busy machine.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <kindling/jit.hpp>
#include <kindling/kindling.hpp>
#include <string>
#include <vector>

namespace kd = kindling;
namespace F = kd::nn::functional;

// [snippet: cnn]
// Chapter 5's CNN for 28x28 Fashion-MNIST images.
struct SmallCNN : kd::nn::Module {
  kd::nn::Conv2d conv1{1, 16, 3, {.padding = 1}};   // [N, 1, 28, 28] -> [N, 16, 28, 28]
  kd::nn::Conv2d conv2{16, 32, 3, {.padding = 1}};  // [N, 16, 14, 14] -> [N, 32, ...]
  kd::nn::MaxPool2d pool{2};                        // halves height and width
  kd::nn::ReLU relu;
  kd::nn::Linear fc{32 * 7 * 7, 10};
  SmallCNN() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("pool", pool);
    register_module("relu", relu);
    register_module("fc", fc);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = pool(relu(conv1(x)));  // [N, 16, 14, 14]
    h = pool(relu(conv2(h)));             // [N, 32, 7, 7]
    return fc(h.flatten(1));              // [N, 1568] -> [N, 10]
  }
};
// [end]

// [snippet: pointwise]
// Only elementwise work: a learned scale and shift, GELU, a gate and a
// residual. x: [batch, width] -> [batch, width]
struct Pointwise : kd::nn::Module {
  kd::Tensor scale, shift, gate;  // [width] each, broadcast over the batch
  explicit Pointwise(std::int64_t width) {
    scale = register_parameter("scale", kd::full({width}, 1.5));
    shift = register_parameter("shift", kd::full({width}, 0.1));
    gate = register_parameter("gate", kd::full({width}, 0.5));
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return F::gelu(x * scale + shift) * gate + x;
  }
};
// [end]

// [snippet: block]
// BENCH P9's block: a GEMM, then elementwise work, then LayerNorm.
// x: [batch, width] -> [batch, width]
struct Block : kd::nn::Module {
  kd::nn::Linear fc;
  kd::nn::LayerNorm norm;
  kd::Tensor gamma;
  explicit Block(std::int64_t width) : fc(width, width), norm(kd::Shape{width}) {
    register_module("fc", fc);
    register_module("norm", norm);
    gamma = register_parameter("gamma", kd::full({width}, 0.5));
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return norm(x + F::gelu(fc(x)) * gamma);
  }
};
// [end]

/// CPU seconds this process has used (all threads).
inline double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// [snippet: paired]
/// How many times faster `b` runs than `a`: both run `reps` times in turn, in
/// alternating order, each timed in CPU seconds; the median of the reps' ratios
/// a/b is returned (a busy moment slows one pair, not the median). `low` and
/// `high` get the middle half of the ratios.
inline double paired_speedup(const std::function<void()>& a,
                             const std::function<void()>& b, int reps,
                             double* low = nullptr, double* high = nullptr) {
  std::vector<double> ratios;
  for (int r = 0; r < reps; ++r) {
    double ta = 0, tb = 0;
    for (int k = 0; k < 2; ++k) {
      const bool a_first = (r + k) % 2 == 0;
      const double t0 = cpu_seconds();
      a_first ? a() : b();
      const double t1 = cpu_seconds();
      a_first ? b() : a();
      const double t2 = cpu_seconds();
      (a_first ? ta : tb) += t1 - t0;
      (a_first ? tb : ta) += t2 - t1;
    }
    ratios.push_back(ta / tb);
  }
  std::sort(ratios.begin(), ratios.end());
  const auto at = [&](double q) {
    return ratios[static_cast<std::size_t>(q * static_cast<double>(ratios.size() - 1))];
  };
  if (low) *low = at(0.25);
  if (high) *high = at(0.75);
  return at(0.5);
}
// [end]
