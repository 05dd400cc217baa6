#pragma once
/// @file
/// Loss functions (torch.nn.*Loss and torch.nn.functional.*). They live in chapter 5's layer but in
/// the `kd::nn` namespace, where PyTorch keeps them: `kd::nn::CrossEntropyLoss criterion;`.
///
/// CrossEntropyLoss takes raw logits: it applies log_softmax itself (the stable log-sum-exp), so a
/// model must NOT end in Softmax — an extra softmax squashes the logits and slows learning.
#include <cstdint>

#include "kindling/tensor/tensor.hpp"

namespace kindling::nn {

/// How per-element losses are combined. BatchMean (the sum divided by the batch size, input.size(0))
/// is kl_div's own; the other losses refuse it, as PyTorch does.
enum class Reduction { None, Mean, Sum, BatchMean };

struct CrossEntropyLossOptions {
  Reduction reduction = Reduction::Mean;
  std::int64_t ignore_index = -100;  // targets equal to this contribute nothing (class-index targets only)
  double label_smoothing = 0.0;      // mix the target with a uniform distribution, in [0, 1]
  Tensor weight = {};                // optional per-class weights [classes]
};
struct NLLLossOptions {
  Reduction reduction = Reduction::Mean;
  std::int64_t ignore_index = -100;
  Tensor weight = {};
};
struct SmoothL1LossOptions {
  Reduction reduction = Reduction::Mean;
  double beta = 1.0;  // below |error| < beta the loss is quadratic, above it linear
};
struct BCEWithLogitsLossOptions {
  Reduction reduction = Reduction::Mean;
  Tensor weight = {};      // per-element weights (broadcast)
  Tensor pos_weight = {};  // weight of positive examples per class (broadcast over the last dim)
};

struct BCELossOptions {
  Reduction reduction = Reduction::Mean;
  Tensor weight = {};  // per-element weights, broadcast to the input's shape
};
struct KLDivLossOptions {
  Reduction reduction = Reduction::Mean;  // BatchMean gives the true KL divergence per sample
  bool log_target = false;                // the target holds log-probabilities
};
struct HuberLossOptions {
  Reduction reduction = Reduction::Mean;
  double delta = 1.0;  // below |error| < delta the loss is quadratic, above it linear (slope delta)
};

namespace functional {
/// Cross-entropy of logits against classes. input: [batch, classes] logits, [classes], or
/// [batch, classes, d1, ..., dk] (a class per pixel: segmentation). target, either:
/// - int64 class indices: [batch] (0-d for a [classes] input, [batch, d1, ..., dk] for K dims), or
/// - class probabilities (soft labels), float, the input's own shape; ignore_index is then refused.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyLossOptions& options = {});
/// input: [batch, classes] log-probabilities (or [classes], or [batch, classes, d1, ..., dk]);
/// target: [batch] int64 class indices (0-d, or [batch, d1, ..., dk]).
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossOptions& options = {});
/// Binary cross-entropy of probabilities: -w·(y·log(x) + (1 - y)·log(1 - x)), each log clamped at
/// -100 as in PyTorch (so x = 0 or 1 gives a finite loss). input: probabilities in [0, 1] (any other
/// value is refused); target: the same shape.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BCELossOptions& options = {});
/// Kullback-Leibler divergence KL(target ‖ input) with `input` holding log-probabilities:
/// target·(log(target) - input) per element (exp(target)·(target - input) with log_target).
/// Reduction::Mean averages over every element; BatchMean divides the sum by input.size(0), which
/// is the KL divergence per sample.
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivLossOptions& options = {});
/// 0.5·z² where z = |input - target| < delta, else delta·(z - 0.5·delta). delta must be > 0.
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossOptions& options = {});
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossOptions& options = {});
/// input: logits, target: probabilities in [0, 1] of the same shape.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BCEWithLogitsLossOptions& options = {});
}  // namespace functional

/// `criterion(logits, labels)` — logits [batch, classes], labels [batch] int64 (or the other forms of
/// functional::cross_entropy: K-dimensional inputs, class probabilities as targets).
class CrossEntropyLoss {
 public:
  explicit CrossEntropyLoss(CrossEntropyLossOptions options = {}) : options_(std::move(options)) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::cross_entropy(input, target, options_);
  }
  const CrossEntropyLossOptions& options() const { return options_; }

 private:
  CrossEntropyLossOptions options_;
};

class NLLLoss {
 public:
  explicit NLLLoss(NLLLossOptions options = {}) : options_(std::move(options)) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::nll_loss(input, target, options_);
  }

 private:
  NLLLossOptions options_;
};

/// Mean squared error, for regression.
class MSELoss {
 public:
  explicit MSELoss(Reduction reduction = Reduction::Mean) : reduction_(reduction) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::mse_loss(input, target, reduction_);
  }

 private:
  Reduction reduction_;
};

/// Mean absolute error.
class L1Loss {
 public:
  explicit L1Loss(Reduction reduction = Reduction::Mean) : reduction_(reduction) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::l1_loss(input, target, reduction_);
  }

 private:
  Reduction reduction_;
};

/// Quadratic near zero, linear for large errors: gentler with outliers than MSELoss.
class SmoothL1Loss {
 public:
  explicit SmoothL1Loss(SmoothL1LossOptions options = {}) : options_(options) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::smooth_l1_loss(input, target, options_);
  }

 private:
  SmoothL1LossOptions options_;
};

/// Sigmoid + binary cross-entropy in one numerically stable expression.
class BCEWithLogitsLoss {
 public:
  explicit BCEWithLogitsLoss(BCEWithLogitsLossOptions options = {}) : options_(std::move(options)) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::binary_cross_entropy_with_logits(input, target, options_);
  }

 private:
  BCEWithLogitsLossOptions options_;
};

/// Binary cross-entropy of probabilities (after a Sigmoid). BCEWithLogitsLoss is the stabler choice.
class BCELoss {
 public:
  explicit BCELoss(BCELossOptions options = {}) : options_(std::move(options)) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::binary_cross_entropy(input, target, options_);
  }

 private:
  BCELossOptions options_;
};

/// KL divergence of the target distribution from the input's log-probabilities.
class KLDivLoss {
 public:
  explicit KLDivLoss(KLDivLossOptions options = {}) : options_(options) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::kl_div(input, target, options_);
  }

 private:
  KLDivLossOptions options_;
};

/// Quadratic below delta, linear (slope delta) above: HuberLoss(delta) = delta·SmoothL1Loss(beta=delta).
class HuberLoss {
 public:
  explicit HuberLoss(HuberLossOptions options = {}) : options_(options) {}
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return functional::huber_loss(input, target, options_);
  }

 private:
  HuberLossOptions options_;
};

}  // namespace kindling::nn
