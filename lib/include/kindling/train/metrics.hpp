#pragma once
/// @file
/// Small metrics for the training and evaluation loops.
#include <cstdint>

#include "kindling/tensor/tensor.hpp"

namespace kindling::train {

/// Number of rows whose argmax over the last dimension equals the label.
/// logits: [batch, classes], labels: [batch] int64.
std::int64_t count_correct(const Tensor& logits, const Tensor& labels);

/// Fraction of correct predictions (count_correct / batch).
double accuracy(const Tensor& logits, const Tensor& labels);

/// A running average of plain numbers (loss.item<double>() per batch, weighted by batch size).
/// Keeping numbers rather than tensors is the point: a stored loss tensor keeps its whole graph alive.
class RunningMean {
 public:
  void add(double value, std::int64_t weight = 1) {
    sum_ += value * static_cast<double>(weight);
    count_ += weight;
  }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  std::int64_t count() const { return count_; }
  void reset() { sum_ = 0, count_ = 0; }

 private:
  double sum_ = 0;
  std::int64_t count_ = 0;
};

}  // namespace kindling::train
