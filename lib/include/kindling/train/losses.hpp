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

/// How per-element losses are combined.
enum class Reduction { None, Mean, Sum };

struct CrossEntropyLossOptions {
  Reduction reduction = Reduction::Mean;
  std::int64_t ignore_index = -100;  // targets equal to this contribute nothing
  double label_smoothing = 0.0;      // mix the one-hot target with a uniform distribution
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

namespace functional {
/// input: [batch, classes] logits (or [classes]); target: [batch] int64 class indices (or 0-d).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyLossOptions& options = {});
/// input: [batch, classes] log-probabilities; target: [batch] int64 class indices.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossOptions& options = {});
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossOptions& options = {});
/// input: logits, target: probabilities in [0, 1] of the same shape.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BCEWithLogitsLossOptions& options = {});
}  // namespace functional

/// `criterion(logits, labels)` — logits [batch, classes], labels [batch] int64.
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

}  // namespace kindling::nn
