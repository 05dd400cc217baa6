#pragma once
/// @file
/// The model zoo: torchvision 0.14's ResNet-18/34/50, VGG-11 with BatchNorm, MobileNetV2 and
/// EfficientNet-B0, with torchvision's module names, order and structure. Two consequences, both
/// tested against torchvision itself:
///   - `std::cout << *model` prints exactly what `print(model)` prints in Python;
///   - a torchvision state_dict (converted to safetensors by scripts/convert_torchvision.py) loads
///     with `model->load_state_dict(kd::load(path))`, strict, every key and shape checked.
///
///     auto model = kd::vision::models::resnet18({.num_classes = 1000});
///     model->load_state_dict(kd::load("resnet18.safetensors"));
///     model->eval();
///     model->fc = kd::nn::Linear(512, 10);   // a new head for a new task
///
/// A factory returns a std::shared_ptr: the model registers its members by reference, so it lives
/// where it was built. Weights are initialised as torchvision initialises them (Kaiming-normal
/// convolutions with fan_out, BatchNorm γ = 1, β = 0, each model's own Linear rule).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kindling/nn/activation.hpp"
#include "kindling/nn/child.hpp"
#include "kindling/nn/container.hpp"
#include "kindling/nn/conv.hpp"
#include "kindling/nn/dropout.hpp"
#include "kindling/nn/linear.hpp"
#include "kindling/nn/module.hpp"
#include "kindling/nn/normalization.hpp"
#include "kindling/nn/pooling.hpp"
#include "kindling/vision/ops.hpp"

namespace kindling::vision::models {

// ---- ResNet ----------------------------------------------------------------------------------------

/// ResNet-18/34's block: two 3x3 convolutions and a shortcut, out = relu(bn2(conv2(relu(bn1(conv1(x)))))
/// + shortcut(x)). The shortcut is x itself, or `downsample` (a 1x1 convolution and BatchNorm) when
/// the block changes the size or the channel count.
class BasicBlock : public nn::Module {
 public:
  static constexpr std::int64_t expansion = 1;
  /// `downsample` may be null (identity shortcut).
  BasicBlock(std::int64_t inplanes, std::int64_t planes, std::int64_t stride = 1,
             std::shared_ptr<nn::Sequential> downsample = nullptr);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "BasicBlock"; }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::ReLU relu{true};
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  std::shared_ptr<nn::Sequential> downsample;
  std::int64_t stride;
};

/// ResNet-50's block: 1x1 (reduce), 3x3 (stride), 1x1 (expand by 4), then the shortcut.
class Bottleneck : public nn::Module {
 public:
  static constexpr std::int64_t expansion = 4;
  Bottleneck(std::int64_t inplanes, std::int64_t planes, std::int64_t stride = 1,
             std::shared_ptr<nn::Sequential> downsample = nullptr);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Bottleneck"; }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Conv2d conv3;
  nn::BatchNorm2d bn3;
  nn::ReLU relu{true};
  std::shared_ptr<nn::Sequential> downsample;
  std::int64_t stride;
};

enum class ResNetBlock { Basic, Bottleneck };

struct ResNetOptions {
  std::int64_t num_classes = 1000;
  /// Start every residual branch's last BatchNorm at γ = 0, so each block begins as the identity.
  bool zero_init_residual = false;
};

/// conv1 → bn1 → relu → maxpool → layer1..layer4 → avgpool → flatten → fc.
class ResNet : public nn::Module {
 public:
  ResNet(ResNetBlock block, std::vector<std::int64_t> layers, ResNetOptions options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ResNet"; }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::ReLU relu{true};
  nn::MaxPool2d maxpool;
  nn::Sequential layer1, layer2, layer3, layer4;
  nn::AdaptiveAvgPool2d avgpool{nn::functional::IntPair(1, 1)};
  nn::Child<nn::Linear> fc;  ///< replaceable: `model->fc = kd::nn::Linear(512, 10);`

 private:
  void make_layer(nn::Sequential& layer, ResNetBlock block, std::int64_t planes, std::int64_t blocks,
                  std::int64_t stride);
  std::int64_t inplanes_ = 64;
};

std::shared_ptr<ResNet> resnet18(ResNetOptions options = {});
std::shared_ptr<ResNet> resnet34(ResNetOptions options = {});
std::shared_ptr<ResNet> resnet50(ResNetOptions options = {});

// ---- VGG ---------------------------------------------------------------------------------------------

struct VGGOptions {
  std::int64_t num_classes = 1000;
  double dropout = 0.5;
};

/// features (convolutions and max-pools) → avgpool to 7x7 → flatten → classifier (three Linear).
class VGG : public nn::Module {
 public:
  /// `cfg`: output channels of each 3x3 convolution, 0 for a 2x2 max-pool (torchvision's "M").
  VGG(const std::vector<std::int64_t>& cfg, bool batch_norm, VGGOptions options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "VGG"; }

  nn::Sequential features;
  nn::AdaptiveAvgPool2d avgpool{nn::functional::IntPair(7, 7)};
  nn::Child<nn::Sequential> classifier;  ///< replaceable
};

std::shared_ptr<VGG> vgg11_bn(VGGOptions options = {});

// ---- MobileNetV2 ---------------------------------------------------------------------------------------

/// Expand (1x1), depthwise 3x3, project (1x1, no activation); x + branch when shape allows.
class InvertedResidual : public nn::Module {
 public:
  InvertedResidual(std::int64_t inp, std::int64_t oup, std::int64_t stride, std::int64_t expand_ratio);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InvertedResidual"; }

  nn::Sequential conv;
  std::int64_t stride, out_channels;
  bool use_res_connect;
};

struct MobileNetV2Options {
  std::int64_t num_classes = 1000;
  double width_mult = 1.0;
  double dropout = 0.2;
};

/// features → adaptive average to 1x1 → flatten → classifier (Dropout, Linear). Like torchvision's,
/// it has no avgpool child: the pooling is a function call in forward.
class MobileNetV2 : public nn::Module {
 public:
  explicit MobileNetV2(MobileNetV2Options options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "MobileNetV2"; }

  nn::Sequential features;
  nn::Child<nn::Sequential> classifier;  ///< replaceable
  std::int64_t last_channel;
};

std::shared_ptr<MobileNetV2> mobilenet_v2(MobileNetV2Options options = {});

// ---- EfficientNet ---------------------------------------------------------------------------------------

/// One row of EfficientNet's table: expand ratio, kernel, stride, channels in and out, repeats.
struct MBConvConfig {
  double expand_ratio;
  std::int64_t kernel, stride, input_channels, out_channels, num_layers;
};

/// Expand (1x1, if expand_ratio > 1), depthwise kxk, squeeze-excitation, project (1x1); when the
/// shape allows, stochastic_depth(branch) + x.
class MBConv : public nn::Module {
 public:
  MBConv(const MBConvConfig& cnf, double stochastic_depth_prob);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "MBConv"; }

  nn::Sequential block;
  ops::StochasticDepth stochastic_depth;
  std::int64_t out_channels;
  bool use_res_connect;
};

struct EfficientNetOptions {
  std::int64_t num_classes = 1000;
  /// The largest drop probability of a block's branch (the last block's; the first's is 0).
  double stochastic_depth_prob = 0.2;
  double dropout = 0.2;
};

/// features → avgpool → flatten → classifier (Dropout, Linear).
class EfficientNet : public nn::Module {
 public:
  EfficientNet(const std::vector<MBConvConfig>& setting, std::int64_t last_channel, EfficientNetOptions options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "EfficientNet"; }

  nn::Sequential features;
  nn::AdaptiveAvgPool2d avgpool{1};
  nn::Child<nn::Sequential> classifier;  ///< replaceable
};

std::shared_ptr<EfficientNet> efficientnet_b0(EfficientNetOptions options = {});

// ---- by name ---------------------------------------------------------------------------------------------

/// The names above ("resnet18", ..., "efficientnet_b0").
std::vector<std::string> list_models();
/// A model by its torchvision name with `num_classes` outputs (torchvision.models.get_model);
/// throws kd::ValueError listing the known names.
std::shared_ptr<nn::Module> get_model(const std::string& name, std::int64_t num_classes = 1000);

}  // namespace kindling::vision::models
