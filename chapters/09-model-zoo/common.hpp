#pragma once
// What the chapter-9 programs share: a small ResNet for 28x28 images built from the
// zoo's BasicBlock, Fashion-MNIST by class, and an accuracy over a whole tensor of
// images.
#include <algorithm>
#include <cstdio>
#include <kindling/kindling.hpp>
#include <kindling/vision.hpp>
#include <string>
#include <vector>

namespace kd = kindling;
namespace models = kd::vision::models;

// [snippet: small-resnet]
// ResNet-18's plan at a quarter of its width and a third of its depth, for 28x28
// images: a stem, three stages of one BasicBlock each, global average pooling and a
// head `fc`.
struct SmallResNet : kd::nn::Module {
  kd::nn::Conv2d conv1{1, 16, 3, {.stride = 2, .padding = 1, .bias = false}};
  kd::nn::BatchNorm2d bn1{16};
  kd::nn::ReLU relu{true};
  kd::nn::Sequential layer1, layer2, layer3;
  kd::nn::AdaptiveAvgPool2d avgpool{1};
  kd::nn::Child<kd::nn::Linear> fc;  // replaceable, as ResNet's is

  explicit SmallResNet(std::int64_t num_classes) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("relu", relu);
    layer1.push_back(std::make_shared<models::BasicBlock>(16, 16));
    layer2.push_back(std::make_shared<models::BasicBlock>(16, 32, 2, shortcut(16, 32)));
    layer3.push_back(std::make_shared<models::BasicBlock>(32, 64, 2, shortcut(32, 64)));
    register_module("layer1", layer1);
    register_module("layer2", layer2);
    register_module("layer3", layer3);
    register_module("avgpool", avgpool);
    fc.bind(*this, "fc", kd::nn::Linear(64, num_classes));
  }
  // The 1x1 convolution (stride 2) and BatchNorm that match the shortcut to the branch.
  static std::shared_ptr<kd::nn::Sequential> shortcut(std::int64_t in,
                                                      std::int64_t out) {
    return std::make_shared<kd::nn::Sequential>(
        kd::nn::Conv2d(in, out, 1, {.stride = 2, .bias = false}),
        kd::nn::BatchNorm2d(out));
  }
  // x [N, 1, 28, 28] -> stem [N, 16, 14, 14] -> layer1 [N, 16, 14, 14]
  // -> layer2 [N, 32, 7, 7] -> layer3 [N, 64, 4, 4] -> pool [N, 64] -> fc [N, classes]
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = relu(bn1(conv1(x)));
    h = layer3(layer2(layer1(h)));
    return fc(kd::nn::functional::flatten(avgpool(h), 1));
  }
};
// [end]

/// Images and labels of some Fashion-MNIST classes, as two tensors.
struct Images {
  kd::Tensor x;  // [N, 1, 28, 28] float32, normalised like chapter 5's
  kd::Tensor y;  // [N] int64, the class minus `first` (0, 1, ... for the new head)
};

/// The first `per_class` images (all, when negative) of each class in [first, first +
/// 5).
inline Images fashion_classes(kd::data::Split split, std::int64_t first,
                              std::int64_t per_class) {
  kd::data::FashionMNIST all(split);
  const kd::Tensor& labels = all.targets();  // [60000] or [10000] int64
  const std::int64_t* label = labels.data_ptr<std::int64_t>();
  std::vector<std::int64_t> index, count(10, 0);
  for (std::int64_t i = 0; i < labels.size(0); ++i) {
    const std::int64_t c = label[i];
    if (c < first || c >= first + 5) continue;
    if (per_class >= 0 && count[c] == per_class) continue;
    ++count[c];
    index.push_back(i);
  }
  kd::Tensor idx = kd::tensor(index, {static_cast<std::int64_t>(index.size())});
  kd::Tensor x = kd::index_select(all.data(), 0, idx).to(kd::kFloat32) / 255.0;
  x = ((x - 0.2860) / 0.3530).unsqueeze(1);
  return {x, kd::index_select(labels, 0, idx) - first};
}

/// Accuracy in percent of `model` (in eval mode) on all of `data`, in batches of 500.
inline double accuracy(kd::nn::Module& model, const Images& data) {
  kd::NoGradGuard no_grad;
  model.eval();
  std::int64_t correct = 0;
  const std::int64_t n = data.x.size(0);
  for (std::int64_t i = 0; i < n; i += 500) {
    const std::int64_t b = std::min<std::int64_t>(500, n - i);
    kd::Tensor logits = model(data.x.narrow(0, i, b));
    correct += (logits.argmax(1) == data.y.narrow(0, i, b)).sum().item<std::int64_t>();
  }
  return 100.0 * static_cast<double>(correct) / static_cast<double>(n);
}
