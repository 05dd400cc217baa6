#pragma once
/// @file
/// Pooling layers: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d (NCHW, no parameters).
#include <optional>
#include <string>

#include "kindling/nn/functional.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::nn {

struct MaxPool2dOptions {
  std::optional<functional::IntPair> stride;  ///< defaults to kernel_size
  functional::IntPair padding = 0;
  functional::IntPair dilation = 1;
  bool ceil_mode = false;
};

/// Largest value of each kernel_size window. `MaxPool2d pool{2};` halves H and W.
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(functional::IntPair kernel_size, MaxPool2dOptions options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "MaxPool2d"; }
  std::string extra_repr() const override;
  functional::IntPair kernel_size;
  MaxPool2dOptions options;
};

struct AvgPool2dOptions {
  std::optional<functional::IntPair> stride;  ///< defaults to kernel_size
  functional::IntPair padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
};

/// Mean of each kernel_size window.
class AvgPool2d : public Module {
 public:
  explicit AvgPool2d(functional::IntPair kernel_size, AvgPool2dOptions options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "AvgPool2d"; }
  std::string extra_repr() const override;
  functional::IntPair kernel_size;
  AvgPool2dOptions options;
};

/// Averages to a fixed output size whatever the input size (AdaptiveAvgPool2d(1) = global average).
class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(functional::IntPair output_size) : output_size(output_size) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "AdaptiveAvgPool2d"; }
  std::string extra_repr() const override { return "output_size=" + output_size.str(); }
  functional::IntPair output_size;
};

}  // namespace kindling::nn
