#pragma once
/// @file
/// nn::Conv1d, nn::Conv2d and nn::ConvTranspose2d: learnable banks of filters, computed as im2col +
/// GEMM (see functional::conv2d, conv1d, conv_transpose2d).
#include <cstdint>
#include <string>

#include "kindling/nn/functional.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::nn {

struct Conv2dOptions {
  functional::IntPair stride = 1;
  functional::Padding padding = 0;  ///< numbers, or "same" / "valid"
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

struct Conv1dOptions {
  std::int64_t stride = 1;
  functional::Padding padding = 0;  ///< one number, or "same" / "valid"
  std::int64_t dilation = 1;
  std::int64_t groups = 1;
  bool bias = true;
};

/// x [N, in_channels, L] → [N, out_channels, L']. Weight [out, in/groups, k], initialised like
/// Conv2d's (fan_in = in/groups·k). `Conv1d conv(16, 32, 5, {.padding = "same"});`
class Conv1d : public Module {
 public:
  Conv1d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size, Conv1dOptions options = {});
  void reset_parameters();
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Conv1d"; }
  std::string extra_repr() const override;

  std::int64_t in_channels, out_channels, kernel_size;
  Conv1dOptions options;
  Tensor weight;  ///< [out_channels, in_channels / groups, k]
  Tensor bias;    ///< [out_channels] or undefined
};

struct ConvTranspose2dOptions {
  functional::IntPair stride = 1;
  functional::IntPair padding = 0;
  functional::IntPair output_padding = 0;  ///< extra rows/columns at the end, < stride or dilation
  std::int64_t groups = 1;
  bool bias = true;
  functional::IntPair dilation = 1;
};

/// x [N, in_channels, H, W] → [N, out_channels, H', W'], H' = (H-1)·stride - 2·padding +
/// dilation·(kH-1) + output_padding + 1: with stride 2 it doubles the size (decoders, GANs).
/// Weight [in, out/groups, kH, kW] -- in and out swapped relative to Conv2d, as in PyTorch.
class ConvTranspose2d : public Module {
 public:
  ConvTranspose2d(std::int64_t in_channels, std::int64_t out_channels, functional::IntPair kernel_size,
                  ConvTranspose2dOptions options = {});
  void reset_parameters();
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ConvTranspose2d"; }
  std::string extra_repr() const override;

  std::int64_t in_channels, out_channels;
  functional::IntPair kernel_size;
  ConvTranspose2dOptions options;
  Tensor weight;  ///< [in_channels, out_channels / groups, kH, kW]
  Tensor bias;    ///< [out_channels] or undefined
};

}  // namespace kindling::nn
