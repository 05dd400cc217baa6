#pragma once
// P8 / M2: the shared set-up of the ResNet-18 benchmarks, used by Kindling's side (bench/resnet.cpp)
// and LibTorch's (bench/peers/p8_resnet_libtorch.cpp), so both run the same network from the same
// weights on the same inputs (C++17, no Kindling):
//   forward  eval mode, no gradients, a batch of 8 images 3x224x224 -> logits [8, 1000]
//   train    train mode (BatchNorm on batch statistics), a batch of 16 images 3x64x64, CrossEntropyLoss,
//            backward, Adam (lr 1e-3) -- the same step as P6's
// The network is torchvision 0.14's resnet18 (BasicBlock [2, 2, 2, 2], 1000 classes). The initial weights
// come from a formula (no random generator to match across libraries): every convolution and Linear
// weight, and the Linear's bias, in [-1/sqrt(fan_in), 1/sqrt(fan_in)] (the range of PyTorch's default
// initialisation; torchvision draws its convolutions from a Kaiming normal instead -- the timing does not
// depend on the values); BatchNorm keeps gamma = 1, beta = 0, running mean 0 and variance 1 on both sides.
// Inputs and labels come from a formula too.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace p8 {

/// The sizes of a run: the full benchmark, or a small one for the CTest smoke test (--quick).
struct Sizes {
  std::int64_t forward_batch, forward_size, train_batch, train_size;
};
inline constexpr Sizes kFull{8, 224, 16, 64};
inline constexpr Sizes kQuick{2, 64, 4, 64};  // 4 at 64x64: BatchNorm sees 16 values a channel in layer4
constexpr std::int64_t kClasses = 1000;

/// A number from a parameter's name (FNV-1a), so each side computes a parameter's values from its
/// name alone, whatever order it registers them in.
inline std::uint32_t name_hash(const std::string& name) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return h;
}

/// Whether the formula sets this parameter (convolution and Linear weights, the Linear's bias);
/// BatchNorm's gamma and beta (1-D, not "fc.bias") keep their defaults.
inline bool from_formula(const std::string& name, const std::vector<std::int64_t>& shape) {
  return shape.size() > 1 || name == "fc.bias";
}

/// The initial values of parameter `name` of `shape` (from_formula only).
inline std::vector<float> initial(const std::string& name, const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  // fan_in: the weight's second dimension times its kernel's area; the Linear's bias shares its weight's (512).
  double fan_in = 512;
  if (shape.size() > 1) {
    fan_in = 1;
    for (std::size_t i = 1; i < shape.size(); ++i) fan_in *= static_cast<double>(shape[i]);
  }
  const double scale = 1.0 / std::sqrt(fan_in);
  const double phase = static_cast<double>(name_hash(name) % 1000) * 1e-3;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>(scale * std::sin(0.7 * static_cast<double>(i) + 6.3 * phase));
  return v;
}

/// A batch of `batch` images 3 x size x size with values in [-1, 1] (roughly normalised images).
inline std::vector<float> images(std::int64_t batch, std::int64_t size) {
  std::vector<float> v(static_cast<std::size_t>(batch * 3 * size * size));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.013 * static_cast<double>(i)));
  return v;
}

/// Their labels, in [0, 1000).
inline std::vector<std::int64_t> labels(std::int64_t batch) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>((i * 137) % kClasses);
  return v;
}

/// Relative agreement of two numbers computed in float32 in different summation orders.
inline bool close(double a, double b, double tol) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

}  // namespace p8
