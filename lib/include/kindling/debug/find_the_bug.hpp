#pragma once
/// @file
/// Find the bug: small training programs of chapter 7's exercises, each with one classic mistake to
/// repair (exercises/ch07/), and what they share: the problem they learn, the network they train and
/// what a run reports. A program has learned when its loss stays finite and falls, and the network
/// classifies held-out samples well; `make grade CH=07` checks exactly that.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kindling/nn.hpp"
#include "kindling/optim/optimizer.hpp"

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

/// A network with the two layers that behave differently in training and in evaluation:
/// Linear(features, hidden) -> BatchNorm1d(hidden) -> ReLU -> Dropout(0.5) -> Linear(hidden, classes).
/// In train() mode BatchNorm normalises by the batch's own statistics (and updates its running ones)
/// and Dropout zeroes half the units at random; in eval() mode both are deterministic.
struct DropoutMLP : nn::Module {
  nn::Linear fc1;
  nn::BatchNorm1d bn;
  nn::ReLU relu;
  nn::Dropout drop;
  nn::Linear fc2;
  DropoutMLP(std::int64_t features, std::int64_t hidden, std::int64_t classes);
  // x: [batch, features] -> [batch, classes] logits
  Tensor forward(const Tensor& x) override;
};

/// What every program shares: this many steps of full-batch gradient descent, this many hidden units.
constexpr int kSteps = 200;
constexpr std::int64_t kHidden = 32;

/// A fresh run: the generator reset with manual_seed(0), so every program starts from the same
/// weights, and a new MLP(features, kHidden, classes) in run.model.
Run start_run(const Problem& p);

/// Records one step's loss (a 0-d tensor) in run.losses; prints "<program>: step N: loss L" every 50 steps.
void record(Run& run, const char* program, int step, const Tensor& loss);

/// kSteps training steps, each: loss = step_loss() (the part a program writes: clear the gradients,
/// forward, the loss), loss.backward(), opt.step(), record(run, program, step, loss).
void run_steps(Run& run, optim::Optimizer& opt, const char* program, const std::function<Tensor()>& step_loss);

/// run_steps with the usual step: opt.zero_grad(), CrossEntropyLoss(run.model(x), targets).
/// x: [n, features], targets: [n] int64 class indices.
void fit(Run& run, optim::Optimizer& opt, const Tensor& x, const Tensor& targets, const char* program);

/// The share of rows of x that `model` classifies as y says (0..1), in eval() mode, without gradients.
double accuracy(nn::Module& model, const Tensor& x, const Tensor& y);

/// ex2: a program that wanted to learn fast.
Run train_fast(const Problem& p);
/// ex3: a program whose labels were "fixed" on the way in.
Run train_labels(const Problem& p);
/// ex4: a program that starts its network from a clean slate.
Run train_from_scratch(const Problem& p);
/// ex5: a program whose every step is bigger than the one before.
Run train_steady(const Problem& p);
/// ex6: a program that trains on probabilities.
Run train_probabilities(const Problem& p);
/// ex8: a program that trains only what it thinks needs training.
Run train_features(const Problem& p);
/// ex7: the held-out accuracy of a trained `model` on `p` (0..1), in batches of 16, without gradients;
/// leaves the model's state (parameters and buffers) as it found it.
double evaluate(nn::Module& model, const Problem& p);

/// The augmentation the training pipeline of ex9 applies to every training batch: each feature gets
/// Gaussian noise of standard deviation kAugmentNoise (drawn from the global generator), so the network
/// sees a new variant of each sample every step. x: [n, features] -> [n, features], a new tensor.
constexpr double kAugmentNoise = 0.3;
Tensor augment(const Tensor& x);
/// ex9: the validation accuracy of a trained `model` on `p` (0..1), in eval() mode, without gradients.
double validate(nn::Module& model, const Problem& p);

}  // namespace kindling::debug::find_the_bug
