#pragma once
/// @file
/// nn::Linear (y = x·Wᵀ + b) and nn::Identity.
#include <cstdint>
#include <string>

#include "kindling/nn/module.hpp"

namespace kindling::nn {

struct LinearOptions {
  bool bias = true;  ///< add a learnable bias
};

/// A fully connected layer: x [*, in_features] → [*, out_features]. Initialised like PyTorch:
/// weight ~ U(-1/√in, 1/√in) (kaiming_uniform_ with a = √5), bias ~ U(-1/√in, 1/√in).
/// `Linear fc{784, 128};` or `Linear fc(784, 128, {.bias = false});`
class Linear : public Module {
 public:
  Linear(std::int64_t in_features, std::int64_t out_features, LinearOptions options = {});
  /// Draws fresh weights (and bias) from the default initialisation.
  void reset_parameters();
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Linear"; }
  std::string extra_repr() const override;

  std::int64_t in_features, out_features;
  Tensor weight;  ///< [out_features, in_features]
  Tensor bias;    ///< [out_features], undefined when options.bias is false
};

/// Returns its input unchanged (a placeholder, e.g. to switch a layer off).
class Identity : public Module {
 public:
  Tensor forward(const Tensor& x) override { return x; }
  std::string type_name() const override { return "Identity"; }
};

}  // namespace kindling::nn
