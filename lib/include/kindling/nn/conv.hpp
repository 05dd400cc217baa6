#pragma once
/// @file
/// nn::Conv2d: a learnable bank of 2-D filters, computed as im2col + GEMM (see functional::conv2d).
#include <cstdint>
#include <string>

#include "kindling/nn/functional.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::nn {

struct Conv2dOptions {
  functional::IntPair stride = 1;
  functional::IntPair padding = 0;
  functional::IntPair dilation = 1;
  std::int64_t groups = 1;
  bool bias = true;
};

/// x [N, in_channels, H, W] → [N, out_channels, H', W']. Weight [out, in/groups, kH, kW] and bias
/// initialised like PyTorch: U(-1/√fan_in, 1/√fan_in) with fan_in = in/groups·kH·kW.
/// `Conv2d conv{1, 6, 5};` or `Conv2d conv(3, 16, 3, {.padding = 1});`
class Conv2d : public Module {
 public:
  Conv2d(std::int64_t in_channels, std::int64_t out_channels, functional::IntPair kernel_size,
         Conv2dOptions options = {});
  void reset_parameters();
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Conv2d"; }
  std::string extra_repr() const override;

  std::int64_t in_channels, out_channels;
  functional::IntPair kernel_size;
  Conv2dOptions options;
  Tensor weight;  ///< [out_channels, in_channels / groups, kH, kW]
  Tensor bias;    ///< [out_channels] or undefined
};

}  // namespace kindling::nn
