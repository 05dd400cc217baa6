#pragma once
// Shared by chapter 9's graded tests. A test builds a block or a model of the twin's sizes
// (tests/grading/ch09/pytorch.py builds the same with torchvision), gives it the twin's weights by
// name, and reports what the library computed with it.
#include <cstdint>
#include <string>
#include <vector>

#include <kindling/kindling.hpp>

#include "grading.hpp"

namespace ch09_grading {
namespace kd = kindling;
namespace models = kd::vision::models;

/// An int the twin chose for this run (an int64 0-d input: sizes and strides vary per run).
inline std::int64_t size_of(const std::string& name) { return grading::input(name).item<std::int64_t>(); }

/// Copies the twin's `<prefix><key>` into every parameter and buffer of `m` but BatchNorm's counters.
inline void load_weights(kd::nn::Module& m, const std::string& prefix = "") {
  kd::NoGradGuard no_grad;
  for (auto& [key, t] : m.state_dict()) {
    if (key.find("num_batches_tracked") != std::string::npos) continue;
    const kd::Tensor src = grading::input(prefix + key);
    REQUIRE(src.sizes() == t.sizes());
    kd::Tensor dst = t;
    dst.copy_(src);
  }
}

/// The downsampling shortcut torchvision's ResNet builds: a 1x1 convolution with the stride, BatchNorm.
inline std::shared_ptr<kd::nn::Sequential> downsample(std::int64_t in, std::int64_t out, std::int64_t stride) {
  return std::make_shared<kd::nn::Sequential>(kd::nn::Conv2d(in, out, 1, {.stride = stride, .bias = false}),
                                              kd::nn::BatchNorm2d(out));
}

/// Runs `block` on the twin's x in train() and eval() mode, and reports both outputs, and in train()
/// mode the gradients of sum(out * g) with respect to x and to `grad_of` (a parameter's dotted name).
inline void run_and_report(kd::nn::Module& block, const std::string& grad_of) {
  kd::Tensor x = grading::input("x").clone().requires_grad_(true);
  block.train();
  const kd::Tensor out = block(x);
  grading::expect("out (train)", out.detach());
  (out * grading::input("g")).sum().backward();
  grading::expect("x.grad", x.grad());
  for (const auto& [name, p] : block.named_parameters())
    if (name == grad_of) grading::expect(name + ".grad", p.grad());
  kd::NoGradGuard no_grad;
  block.eval();
  grading::expect("out (eval)", block(grading::input("x")));
}

/// "a b c": a list of keys or names as one string (compared exactly; an empty list is "").
inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& k : v) s += (s.empty() ? "" : " ") + k;
  return s;
}

/// The twin's list of keys (a text input, one per line).
inline std::vector<std::string> lines(const std::string& name) {
  std::vector<std::string> out;
  std::string text = grading::input_text(name), line;
  for (char c : text) {
    if (c == '\n') {
      if (!line.empty()) out.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace ch09_grading
