#pragma once
/// @file
/// Normalisation layers: BatchNorm1d / BatchNorm2d (statistics over the batch, per channel) and
/// LayerNorm (statistics over each sample's last dimensions).
#include <cstdint>
#include <optional>
#include <string>

#include "kindling/nn/module.hpp"

namespace kindling::nn {

struct BatchNormOptions {
  double eps = 1e-5;
  /// Weight of the new batch in the running averages; std::nullopt = cumulative average (PyTorch's None).
  std::optional<double> momentum = 0.1;
  bool affine = true;               ///< learnable weight (γ, ones) and bias (β, zeros)
  bool track_running_stats = true;  ///< keep running_mean / running_var / num_batches_tracked buffers
};

/// Shared by BatchNorm1d and BatchNorm2d (PyTorch's _BatchNorm). In train(): normalises with the
/// batch mean and *biased* variance and updates running_mean/running_var (the latter with the
/// *unbiased* variance) and num_batches_tracked. In eval(): normalises with the running statistics.
class BatchNorm : public Module {
 public:
  BatchNorm(std::int64_t num_features, BatchNormOptions options);
  void reset_running_stats();
  void reset_parameters();
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  std::int64_t num_features;
  BatchNormOptions options;
  Tensor weight, bias;                                      ///< [C] (undefined unless affine)
  Tensor running_mean, running_var, num_batches_tracked;  ///< buffers (undefined unless tracking)

 protected:
  /// Throws ShapeError unless x has a dimension count this layer accepts.
  virtual void check_input_dim(const Tensor& x) const = 0;
};

/// x: [N, C] or [N, C, L].
class BatchNorm1d : public BatchNorm {
 public:
  explicit BatchNorm1d(std::int64_t num_features, BatchNormOptions options = {})
      : BatchNorm(num_features, options) {}
  std::string type_name() const override { return "BatchNorm1d"; }

 protected:
  void check_input_dim(const Tensor& x) const override;
};

/// x: [N, C, H, W].
class BatchNorm2d : public BatchNorm {
 public:
  explicit BatchNorm2d(std::int64_t num_features, BatchNormOptions options = {})
      : BatchNorm(num_features, options) {}
  std::string type_name() const override { return "BatchNorm2d"; }

 protected:
  void check_input_dim(const Tensor& x) const override;
};

struct LayerNormOptions {
  double eps = 1e-5;
  bool elementwise_affine = true;  ///< learnable weight (ones) and bias (zeros) of normalized_shape
};

/// Normalises each sample over its last dims (normalized_shape) — no batch statistics, no
/// train/eval difference. `LayerNorm ln{{512}};` or `LayerNorm ln({2, 3}, {.eps = 1e-6});`
class LayerNorm : public Module {
 public:
  explicit LayerNorm(Shape normalized_shape, LayerNormOptions options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "LayerNorm"; }
  std::string extra_repr() const override;
  Shape normalized_shape;
  LayerNormOptions options;
  Tensor weight, bias;
};

}  // namespace kindling::nn
