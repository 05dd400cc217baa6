#pragma once
// P6: the shared set-up of the CNN training benchmark, used by Kindling's side (bench/cnn_train.cpp) and
// LibTorch's (bench/peers/p6_cnn_libtorch.cpp), so both train the same network from the same weights on
// the same batches:
//   x [64, 1, 28, 28] -> conv1 1->32 3x3 pad 1 -> relu -> maxpool 2 -> conv2 32->64 3x3 pad 1 -> relu
//   -> maxpool 2 -> flatten [64, 3136] -> fc1 3136->128 -> relu -> fc2 128->10 -> CrossEntropyLoss
// Adam (lr 1e-3); batch b of a step is images [64 b, 64 (b + 1)) of Fashion-MNIST's training set / 255.
// The initial weights come from a formula (no random generator to match across libraries).
#include <cmath>
#include <cstdint>
#include <vector>

namespace p6 {

constexpr std::int64_t kBatch = 64;

/// One parameter: its PyTorch name, shape and fan-in (the scale of its initial values).
struct Param {
  const char* name;
  std::vector<std::int64_t> shape;
  double fan_in;
};

/// The parameters in the order both models register them.
inline std::vector<Param> params() {
  return {{"conv1.weight", {32, 1, 3, 3}, 9},     {"conv1.bias", {32}, 9},
          {"conv2.weight", {64, 32, 3, 3}, 288},  {"conv2.bias", {64}, 288},
          {"fc1.weight", {128, 3136}, 3136},      {"fc1.bias", {128}, 3136},
          {"fc2.weight", {10, 128}, 128},         {"fc2.bias", {10}, 128}};
}

/// The initial values of parameter number `k`: n values in [-1/sqrt(fan_in), 1/sqrt(fan_in)] (the
/// range of PyTorch's default initialisation), different for each parameter.
inline std::vector<float> initial(const Param& p, int k) {
  std::int64_t n = 1;
  for (auto d : p.shape) n *= d;
  std::vector<float> v(static_cast<std::size_t>(n));
  const double scale = 1.0 / std::sqrt(p.fan_in);
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>(scale * std::sin(0.7 * static_cast<double>(i) * (k + 1) + k));
  return v;
}

/// Relative agreement of two losses after the same steps (float32 with different summation orders,
/// Adam amplifies tiny differences a little per step).
inline bool close(double a, double b, double tol) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

}  // namespace p6
