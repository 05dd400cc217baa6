#pragma once
/// @file
/// The training doctor: short experiments on one batch that find the common reasons a model does
/// not learn, each reported with its cause and its fix. Every check leaves the model as it found
/// it (weights, buffers and train/eval mode are restored).
///
///     auto [x, y] = *loader.begin();
///     auto report = kd::debug::doctor(model, criterion, make_adam, x, y,
///                                     {.train_step = step, .evaluate = eval_fn});
///     std::cout << report.to_string();
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kindling/nn/module.hpp"
#include "kindling/optim/optimizer.hpp"

namespace kindling::debug {

/// One thing that is wrong: which check found it, why it happens, what to change.
struct Finding {
  std::string check;  ///< e.g. "softmax-before-cross-entropy"
  std::string cause;
  std::string fix;
};

struct DoctorReport {
  std::vector<Finding> findings;
  std::vector<std::string> passed;   ///< the checks that ran and found nothing
  std::vector<std::string> skipped;  ///< the checks that could not run (what they need)
  bool healthy() const { return findings.empty(); }
  bool has(std::string_view check) const;
  std::string to_string() const;
};

using LossFn = std::function<Tensor(const Tensor& output, const Tensor& target)>;
/// Makes a fresh optimizer over `params` (the doctor's own experiments must not touch yours).
using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(const std::vector<Tensor>& params)>;

struct DoctorOptions {
  /// Your own training step on a batch (zero_grad, forward, loss, backward, step); returns the loss.
  /// With it the doctor checks for a forgotten zero_grad.
  std::function<double(const Tensor& x, const Tensor& y)> train_step = nullptr;
  /// Your own evaluation on a batch (returns the outputs). With it the doctor checks that Dropout
  /// and BatchNorm run in eval mode there.
  std::function<Tensor(const Tensor& x)> evaluate = nullptr;
  int overfit_steps = 100;     ///< steps on the one batch
  double overfit_ratio = 0.1;  ///< the loss must fall below this share of its first value
  int lr_steps = 8;            ///< steps at lr and at lr / 10 for the learning-rate check
  double dead_relu_share = 0.5;   ///< a ReLU whose outputs are 0 for the whole batch in more units
  double exploding_norm = 100;    ///< total gradient norm above this is exploding
};

/// Runs every check on the batch (x, y): data dtype/device/NaN, initialisation, softmax before
/// CrossEntropyLoss, all-equal outputs, dead ReLUs, gradients reaching every layer, exploding
/// gradients, overfitting the batch, the learning rate, and (with the options) zero_grad and eval().
DoctorReport doctor(nn::Module& model, const LossFn& loss, const MakeOptimizer& make_optimizer, const Tensor& x,
                    const Tensor& y, const DoctorOptions& options = {});

}  // namespace kindling::debug
