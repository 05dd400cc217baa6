#pragma once
/// @file
/// The building blocks torchvision's models share (`torchvision.ops`): Conv2dNormActivation
/// (convolution, BatchNorm, activation), SqueezeExcitation (a per-channel gate computed from the
/// whole image) and StochasticDepth (drops a residual branch per sample while training).
/// Names, children and printing are torchvision 0.14's, so state dicts and print(model) match.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "kindling/nn/activation.hpp"
#include "kindling/nn/container.hpp"
#include "kindling/nn/conv.hpp"
#include "kindling/nn/module.hpp"
#include "kindling/nn/pooling.hpp"

namespace kindling::vision::ops {

/// Which activation a block ends with (torchvision passes a class; here an enum, `inplace=True`
/// as torchvision builds them).
enum class Activation { None, ReLU, ReLU6, SiLU, Hardswish, Sigmoid };

/// A new activation module of that kind (`inplace` as torchvision passes it), or nullptr for None.
std::shared_ptr<nn::Module> make_activation(Activation kind, bool inplace = true);

struct Conv2dNormActivationOptions {
  std::int64_t stride = 1;
  /// Defaults to (kernel_size - 1) / 2 · dilation: the output keeps the input's size at stride 1.
  std::optional<std::int64_t> padding;
  std::int64_t groups = 1;
  bool norm = true;  ///< a BatchNorm2d after the convolution (the convolution then has no bias)
  Activation activation = Activation::ReLU;
  std::int64_t dilation = 1;
  /// Defaults to "no norm layer": a convolution followed by BatchNorm needs no bias of its own.
  std::optional<bool> bias;
};

/// torchvision.ops.Conv2dNormActivation: a Sequential of Conv2d, BatchNorm2d and an activation,
/// children "0", "1", "2".
class Conv2dNormActivation : public nn::Sequential {
 public:
  Conv2dNormActivation(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size = 3,
                       Conv2dNormActivationOptions options = {});
  std::string type_name() const override { return "Conv2dNormActivation"; }
  std::int64_t out_channels;
};

/// torchvision.ops.SqueezeExcitation: scale = σ(fc2(act(fc1(avgpool(x))))), returns scale · x.
/// The gate is one number per sample and channel, computed from the whole feature map.
class SqueezeExcitation : public nn::Module {
 public:
  SqueezeExcitation(std::int64_t input_channels, std::int64_t squeeze_channels,
                    Activation activation = Activation::ReLU, Activation scale_activation = Activation::Sigmoid,
                    bool activation_inplace = false);  // EfficientNet's SiLU(inplace=True)
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "SqueezeExcitation"; }

  nn::AdaptiveAvgPool2d avgpool{1};
  nn::Conv2d fc1, fc2;
  std::shared_ptr<nn::Module> activation, scale_activation;
};

/// torchvision.ops.stochastic_depth: in training, zeroes the whole input of a sample ("row") or of
/// the batch ("batch") with probability p and scales the survivors by 1/(1-p); the identity in
/// eval() or when p is 0. Draws from the global generator (kd::manual_seed).
Tensor stochastic_depth(const Tensor& input, double p, const std::string& mode, bool training = true);

/// The module form of stochastic_depth. Prints "StochasticDepth(p=0.0125, mode=row)".
class StochasticDepth : public nn::Module {
 public:
  StochasticDepth(double p, std::string mode);
  Tensor forward(const Tensor& x) override { return stochastic_depth(x, p, mode, is_training()); }
  std::string type_name() const override { return "StochasticDepth"; }
  std::string extra_repr() const override;
  double p;
  std::string mode;
};

}  // namespace kindling::vision::ops
