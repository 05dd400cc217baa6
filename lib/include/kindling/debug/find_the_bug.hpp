#pragma once
/// @file
/// Find the bug: small training programs of chapter 7's exercises, each with one classic mistake to
/// repair (exercises/ch07/), and what they share: the problem they learn, the network they train and
/// what a run reports. A program has learned when its loss stays finite and falls, and the network
/// classifies held-out samples well; `make grade CH=07` checks exactly that.
#include <cstdint>
#include <memory>
#include <vector>

#include "kindling/nn.hpp"

namespace kindling::debug::find_the_bug {

/// A classification problem: x [n, features] float32, y [n] int64 class indices in [0, classes).
/// The program learns from it; it is judged on held-out samples of the same problem that it never sees.
struct Problem {
  Tensor x, y;
  std::int64_t classes = 0;
};

struct MLP;

/// What a program returns: the network it trained and the training loss of every step.
struct Run {
  std::shared_ptr<MLP> model;
  std::vector<double> losses;
};

/// The network every program trains: Linear(features, hidden) -> ReLU -> Linear(hidden, classes).
struct MLP : nn::Module {
  nn::Linear fc1;
  nn::ReLU relu;
  nn::Linear fc2;
  MLP(std::int64_t features, std::int64_t hidden, std::int64_t classes);
  // x: [batch, features] -> [batch, classes] logits
  Tensor forward(const Tensor& x) override;
};

/// The share of rows of x that `model` classifies as y says (0..1), in eval() mode, without gradients.
double accuracy(nn::Module& model, const Tensor& x, const Tensor& y);

/// ex2: a program that wanted to learn fast.
Run train_fast(const Problem& p);
/// ex3: a program whose labels were "fixed" on the way in.
Run train_labels(const Problem& p);
/// ex4: a program that starts its network from a clean slate.
Run train_from_scratch(const Problem& p);

}  // namespace kindling::debug::find_the_bug
