// The model zoo: torchvision 0.14's ResNet, VGG, MobileNetV2 and EfficientNet, child for child
// (torchvision/models/resnet.py, vgg.py, mobilenetv2.py, efficientnet.py). The order in which
// children are registered is the order torchvision assigns them, which is the order of the state
// dict and of print(model).
#include "kindling/vision/models.hpp"

#include <algorithm>
#include <cmath>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/nn/flatten.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"

namespace kindling::vision::models {

namespace F = nn::functional;
using nn::init::FanMode;

namespace {

nn::Conv2d conv3x3(std::int64_t in, std::int64_t out, std::int64_t stride = 1, std::int64_t groups = 1) {
  return nn::Conv2d(in, out, 3, {.stride = stride, .padding = 1, .groups = groups, .bias = false});
}
nn::Conv2d conv1x1(std::int64_t in, std::int64_t out, std::int64_t stride = 1) {
  return nn::Conv2d(in, out, 1, {.stride = stride, .bias = false});
}

// torchvision's weight initialisation, shared by every model: Kaiming-normal convolutions
// (fan_out, ReLU gain), zero conv biases, BatchNorm γ = 1 and β = 0; `linear` sets the model's
// own rule for its Linear layers.
template <class LinearInit>
void init_weights(nn::Module& model, LinearInit linear) {
  NoGradGuard no_grad;
  for (nn::Module* m : model.modules()) {
    if (auto* c = dynamic_cast<nn::Conv2d*>(m)) {
      nn::init::kaiming_normal_(c->weight, 0.0, FanMode::FanOut, "relu");
      if (c->bias.defined()) nn::init::zeros_(c->bias);
    } else if (auto* b = dynamic_cast<nn::BatchNorm*>(m)) {
      if (b->weight.defined()) nn::init::ones_(b->weight);
      if (b->bias.defined()) nn::init::zeros_(b->bias);
    } else if (auto* l = dynamic_cast<nn::Linear*>(m)) {
      linear(*l);
    }
  }
}

// torchvision's _make_divisible: the nearest multiple of `divisor`, never 10% below v.
std::int64_t make_divisible(double v, std::int64_t divisor) {
  std::int64_t new_v = std::max<std::int64_t>(divisor, static_cast<std::int64_t>(v + divisor / 2.0) / divisor * divisor);
  if (static_cast<double>(new_v) < 0.9 * v) new_v += divisor;
  return new_v;
}

void check_num_classes(std::int64_t n, const char* model) {
  if (n < 1)
    throw ValueError(std::string(model) + ": num_classes must be at least 1, got " + std::to_string(n));
}

}  // namespace

// ---- ResNet --------------------------------------------------------------------------------------------

// [snippet: basic-block]
// x: [N, inplanes, H, W] -> [N, planes, H/stride, W/stride]. The shortcut is the
// identity, or `downsample` (a strided 1x1 convolution and its BatchNorm) where the
// shape changes.
BasicBlock::BasicBlock(std::int64_t inplanes, std::int64_t planes, std::int64_t stride_,
                       std::shared_ptr<nn::Sequential> downsample_)
    : conv1(conv3x3(inplanes, planes, stride_)), bn1(planes),
      conv2(conv3x3(planes, planes)), bn2(planes),
      downsample(std::move(downsample_)), stride(stride_) {
  register_module("conv1", conv1);
  register_module("bn1", bn1);
  register_module("relu", relu);
  register_module("conv2", conv2);
  register_module("bn2", bn2);
  if (downsample) register_module("downsample", downsample);
}
// [end]

// BasicBlock::forward is chapter 9's exercise 1 (vision/pieces.hpp): in the answer file.

Bottleneck::Bottleneck(std::int64_t inplanes, std::int64_t planes, std::int64_t stride_,
                       std::shared_ptr<nn::Sequential> downsample_)
    : conv1(conv1x1(inplanes, planes)), bn1(planes), conv2(conv3x3(planes, planes, stride_)), bn2(planes),
      conv3(conv1x1(planes, planes * expansion)), bn3(planes * expansion), downsample(std::move(downsample_)),
      stride(stride_) {
  register_module("conv1", conv1);
  register_module("bn1", bn1);
  register_module("conv2", conv2);
  register_module("bn2", bn2);
  register_module("conv3", conv3);
  register_module("bn3", bn3);
  register_module("relu", relu);
  if (downsample) register_module("downsample", downsample);
}

// Bottleneck::forward is chapter 9's exercise 2 (vision/pieces.hpp): in the answer file.

ResNet::ResNet(ResNetBlock block, std::vector<std::int64_t> layers, ResNetOptions options)
    : conv1(3, 64, 7, {.stride = 2, .padding = 3, .bias = false}),
      bn1(64),
      maxpool(3, {.stride = 2, .padding = 1}) {
  check_num_classes(options.num_classes, "resnet");
  if (layers.size() != 4)
    throw ValueError("ResNet: expected 4 stage depths (e.g. {2, 2, 2, 2}), got " + std::to_string(layers.size()));
  register_module("conv1", conv1);
  register_module("bn1", bn1);
  register_module("relu", relu);
  register_module("maxpool", maxpool);
  make_layer(layer1, block, 64, layers[0], 1);
  make_layer(layer2, block, 128, layers[1], 2);
  make_layer(layer3, block, 256, layers[2], 2);
  make_layer(layer4, block, 512, layers[3], 2);
  register_module("layer1", layer1);
  register_module("layer2", layer2);
  register_module("layer3", layer3);
  register_module("layer4", layer4);
  register_module("avgpool", avgpool);
  const std::int64_t expansion = block == ResNetBlock::Basic ? BasicBlock::expansion : Bottleneck::expansion;
  fc.bind(*this, "fc", nn::Linear(512 * expansion, options.num_classes));
  // The Linear keeps PyTorch's default initialisation, as in torchvision.
  init_weights(*this, [](nn::Linear& l) { l.reset_parameters(); });
  if (options.zero_init_residual) {
    NoGradGuard no_grad;
    for (nn::Module* m : modules()) {
      if (auto* b = dynamic_cast<Bottleneck*>(m)) nn::init::zeros_(b->bn3.weight);
      if (auto* b = dynamic_cast<BasicBlock*>(m)) nn::init::zeros_(b->bn2.weight);
    }
  }
}

void ResNet::make_layer(nn::Sequential& layer, ResNetBlock block, std::int64_t planes, std::int64_t blocks,
                        std::int64_t stride) {
  const std::int64_t expansion = block == ResNetBlock::Basic ? BasicBlock::expansion : Bottleneck::expansion;
  std::shared_ptr<nn::Sequential> downsample;
  if (stride != 1 || inplanes_ != planes * expansion)
    downsample = std::make_shared<nn::Sequential>(conv1x1(inplanes_, planes * expansion, stride),
                                                  nn::BatchNorm2d(planes * expansion));
  auto make = [&](std::int64_t in, std::int64_t s, std::shared_ptr<nn::Sequential> ds) -> std::shared_ptr<nn::Module> {
    if (block == ResNetBlock::Basic) return std::make_shared<BasicBlock>(in, planes, s, std::move(ds));
    return std::make_shared<Bottleneck>(in, planes, s, std::move(ds));
  };
  layer.push_back(make(inplanes_, stride, downsample));
  inplanes_ = planes * expansion;
  for (std::int64_t i = 1; i < blocks; ++i) layer.push_back(make(inplanes_, 1, nullptr));
}

Tensor ResNet::forward(const Tensor& x) {
  Tensor h = maxpool(relu(bn1(conv1(x))));
  h = layer4(layer3(layer2(layer1(h))));
  return fc(F::flatten(avgpool(h), 1));
}

std::shared_ptr<ResNet> resnet18(ResNetOptions o) { return std::make_shared<ResNet>(ResNetBlock::Basic, std::vector<std::int64_t>{2, 2, 2, 2}, o); }
std::shared_ptr<ResNet> resnet34(ResNetOptions o) { return std::make_shared<ResNet>(ResNetBlock::Basic, std::vector<std::int64_t>{3, 4, 6, 3}, o); }
std::shared_ptr<ResNet> resnet50(ResNetOptions o) { return std::make_shared<ResNet>(ResNetBlock::Bottleneck, std::vector<std::int64_t>{3, 4, 6, 3}, o); }

// ---- VGG -------------------------------------------------------------------------------------------------

VGG::VGG(const std::vector<std::int64_t>& cfg, bool batch_norm, VGGOptions options) {
  check_num_classes(options.num_classes, "vgg");
  std::int64_t in = 3;
  for (std::int64_t v : cfg) {
    if (v == 0) {
      features.push_back(nn::MaxPool2d(2, {.stride = 2}));
      continue;
    }
    features.push_back(nn::Conv2d(in, v, 3, {.padding = 1}));
    if (batch_norm) features.push_back(nn::BatchNorm2d(v));
    features.push_back(nn::ReLU(true));
    in = v;
  }
  register_module("features", features);
  register_module("avgpool", avgpool);
  classifier.bind(*this, "classifier",
                  nn::Sequential(nn::Linear(512 * 7 * 7, 4096), nn::ReLU(true), nn::Dropout(options.dropout),
                                 nn::Linear(4096, 4096), nn::ReLU(true), nn::Dropout(options.dropout),
                                 nn::Linear(4096, options.num_classes)));
  init_weights(*this, [](nn::Linear& l) {
    nn::init::normal_(l.weight, 0.0, 0.01);
    nn::init::zeros_(l.bias);
  });
}

Tensor VGG::forward(const Tensor& x) { return classifier(F::flatten(avgpool(features(x)), 1)); }

std::shared_ptr<VGG> vgg11_bn(VGGOptions o) {
  return std::make_shared<VGG>(std::vector<std::int64_t>{64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0}, true, o);
}

// ---- MobileNetV2 -------------------------------------------------------------------------------------------

InvertedResidual::InvertedResidual(std::int64_t inp, std::int64_t oup, std::int64_t stride_, std::int64_t expand_ratio)
    : stride(stride_), out_channels(oup), use_res_connect(stride_ == 1 && inp == oup) {
  if (stride != 1 && stride != 2) throw ValueError("InvertedResidual: stride should be 1 or 2, got " + std::to_string(stride));
  // torchvision: int(round(inp * expand_ratio)) -- an integer ratio makes it exact.
  const std::int64_t hidden = inp * expand_ratio;
  using ops::Activation;
  if (expand_ratio != 1) conv.push_back(ops::Conv2dNormActivation(inp, hidden, 1, {.activation = Activation::ReLU6}));
  conv.push_back(ops::Conv2dNormActivation(hidden, hidden, 3,
                                           {.stride = stride, .groups = hidden, .activation = Activation::ReLU6}));
  conv.push_back(nn::Conv2d(hidden, oup, 1, {.stride = 1, .padding = 0, .bias = false}));
  conv.push_back(nn::BatchNorm2d(oup));
  register_module("conv", conv);
}

Tensor InvertedResidual::forward(const Tensor& x) { return use_res_connect ? x + conv(x) : conv(x); }

MobileNetV2::MobileNetV2(MobileNetV2Options o) {
  check_num_classes(o.num_classes, "mobilenet_v2");
  // t (expansion), c (channels), n (repeats), s (first stride)
  const std::int64_t setting[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  std::int64_t input_channel = make_divisible(32 * o.width_mult, 8);
  last_channel = make_divisible(1280 * std::max(1.0, o.width_mult), 8);
  using ops::Activation;
  features.push_back(ops::Conv2dNormActivation(3, input_channel, 3, {.stride = 2, .activation = Activation::ReLU6}));
  for (const auto& [t, c, n, s] : setting) {
    const std::int64_t output_channel = make_divisible(static_cast<double>(c) * o.width_mult, 8);
    for (std::int64_t i = 0; i < n; ++i) {
      features.push_back(std::make_shared<InvertedResidual>(input_channel, output_channel, i == 0 ? s : 1, t));
      input_channel = output_channel;
    }
  }
  features.push_back(ops::Conv2dNormActivation(input_channel, last_channel, 1, {.activation = Activation::ReLU6}));
  register_module("features", features);
  classifier.bind(*this, "classifier", nn::Sequential(nn::Dropout(o.dropout), nn::Linear(last_channel, o.num_classes)));
  init_weights(*this, [](nn::Linear& l) {
    nn::init::normal_(l.weight, 0.0, 0.01);
    nn::init::zeros_(l.bias);
  });
}

Tensor MobileNetV2::forward(const Tensor& x) {
  return classifier(F::flatten(F::adaptive_avg_pool2d(features(x), {1, 1}), 1));
}

std::shared_ptr<MobileNetV2> mobilenet_v2(MobileNetV2Options o) { return std::make_shared<MobileNetV2>(o); }

// ---- EfficientNet --------------------------------------------------------------------------------------------

MBConv::MBConv(const MBConvConfig& cnf, double stochastic_depth_prob)
    : stochastic_depth(stochastic_depth_prob, "row"),
      out_channels(cnf.out_channels),
      use_res_connect(cnf.stride == 1 && cnf.input_channels == cnf.out_channels) {
  if (cnf.stride != 1 && cnf.stride != 2) throw ValueError("MBConv: stride should be 1 or 2, got " + std::to_string(cnf.stride));
  using ops::Activation;
  const std::int64_t expanded = make_divisible(static_cast<double>(cnf.input_channels) * cnf.expand_ratio, 8);
  if (expanded != cnf.input_channels)
    block.push_back(ops::Conv2dNormActivation(cnf.input_channels, expanded, 1, {.activation = Activation::SiLU}));
  block.push_back(ops::Conv2dNormActivation(expanded, expanded, cnf.kernel,
                                            {.stride = cnf.stride, .groups = expanded, .activation = Activation::SiLU}));
  const std::int64_t squeeze = std::max<std::int64_t>(1, cnf.input_channels / 4);
  block.push_back(std::make_shared<ops::SqueezeExcitation>(expanded, squeeze, Activation::SiLU,
                                                          Activation::Sigmoid, /*activation_inplace=*/true));
  block.push_back(ops::Conv2dNormActivation(expanded, cnf.out_channels, 1, {.activation = Activation::None}));
  register_module("block", block);
  register_module("stochastic_depth", stochastic_depth);
}

Tensor MBConv::forward(const Tensor& x) {
  Tensor result = block(x);
  if (use_res_connect) result = stochastic_depth(result) + x;
  return result;
}

EfficientNet::EfficientNet(const std::vector<MBConvConfig>& setting, std::int64_t last_channel,
                           EfficientNetOptions o) {
  check_num_classes(o.num_classes, "efficientnet");
  if (setting.empty()) throw ValueError("EfficientNet: the block setting is empty");
  using ops::Activation;
  features.push_back(ops::Conv2dNormActivation(3, setting[0].input_channels, 3, {.stride = 2, .activation = Activation::SiLU}));
  std::int64_t total_stage_blocks = 0;
  for (const auto& c : setting) total_stage_blocks += c.num_layers;
  std::int64_t stage_block_id = 0;
  for (const auto& cnf : setting) {
    auto stage = std::make_shared<nn::Sequential>();
    for (std::int64_t i = 0; i < cnf.num_layers; ++i) {
      MBConvConfig b = cnf;
      if (i > 0) {
        b.input_channels = b.out_channels;
        b.stride = 1;
      }
      // The same expression, in the same order, as torchvision: the printed p is Python's float.
      const double sd_prob = o.stochastic_depth_prob * static_cast<double>(stage_block_id) /
                             static_cast<double>(total_stage_blocks);
      stage->push_back(std::make_shared<MBConv>(b, sd_prob));
      ++stage_block_id;
    }
    features.push_back(stage);
  }
  const std::int64_t lastconv_in = setting.back().out_channels;
  const std::int64_t lastconv_out = last_channel > 0 ? last_channel : 4 * lastconv_in;
  features.push_back(ops::Conv2dNormActivation(lastconv_in, lastconv_out, 1, {.activation = Activation::SiLU}));
  register_module("features", features);
  register_module("avgpool", avgpool);
  classifier.bind(*this, "classifier",
                  nn::Sequential(nn::Dropout(o.dropout, true), nn::Linear(lastconv_out, o.num_classes)));
  init_weights(*this, [](nn::Linear& l) {
    const double range = 1.0 / std::sqrt(static_cast<double>(l.out_features));
    nn::init::uniform_(l.weight, -range, range);
    nn::init::zeros_(l.bias);
  });
}

Tensor EfficientNet::forward(const Tensor& x) { return classifier(F::flatten(avgpool(features(x)), 1)); }

std::shared_ptr<EfficientNet> efficientnet_b0(EfficientNetOptions o) {
  // expand ratio, kernel, stride, in, out, repeats (width and depth multipliers 1.0)
  const std::vector<MBConvConfig> setting = {{1, 3, 1, 32, 16, 1},  {6, 3, 2, 16, 24, 2},   {6, 5, 2, 24, 40, 2},
                                             {6, 3, 2, 40, 80, 3},  {6, 5, 1, 80, 112, 3},  {6, 5, 2, 112, 192, 4},
                                             {6, 3, 1, 192, 320, 1}};
  return std::make_shared<EfficientNet>(setting, 1280, o);
}

// ---- by name ------------------------------------------------------------------------------------------------

std::vector<std::string> list_models() {
  return {"efficientnet_b0", "mobilenet_v2", "resnet18", "resnet34", "resnet50", "vgg11_bn"};
}

std::shared_ptr<nn::Module> get_model(const std::string& name, std::int64_t num_classes) {
  if (name == "resnet18") return resnet18({.num_classes = num_classes});
  if (name == "resnet34") return resnet34({.num_classes = num_classes});
  if (name == "resnet50") return resnet50({.num_classes = num_classes});
  if (name == "vgg11_bn") return vgg11_bn({.num_classes = num_classes});
  if (name == "mobilenet_v2") return mobilenet_v2({.num_classes = num_classes});
  if (name == "efficientnet_b0") return efficientnet_b0({.num_classes = num_classes});
  std::string known;
  for (const auto& n : list_models()) known += (known.empty() ? "" : ", ") + n;
  throw ValueError("get_model: unknown model '" + name + "' (known: " + known + ")");
}

}  // namespace kindling::vision::models
