#pragma once
// P6 (groundwork): the shared set-up of the Conv2d benchmark, used by Kindling's side (bench/conv2d.cpp)
// and LibTorch's (bench/peers/p6_conv2d_libtorch.cpp), so both compute the same thing on the same numbers:
//   x [32, 1, 28, 28] → Conv2d(1, 32, 3, padding 1) → ReLU → Conv2d(32, 64, 3, padding 1) → y [32, 64, 28, 28]
//   loss = y.sum(); backward to both convolutions' weights and biases (x needs no gradient).
// Values come from a formula (no random generator to match across libraries).
#include <cmath>
#include <cstdint>
#include <vector>

namespace p6 {

constexpr std::int64_t kBatch = 32, kH = 28, kW = 28, kC1 = 32, kC2 = 64, kK = 3;

/// n deterministic values in [-scale, scale], different for each `salt`.
inline std::vector<float> values(std::int64_t n, int salt, double scale) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>(scale * std::sin(0.7 * static_cast<double>(i) * (salt + 1) + salt));
  return v;
}

inline std::vector<float> input() { return values(kBatch * 1 * kH * kW, 0, 1.0); }
inline std::vector<float> weight1() { return values(kC1 * 1 * kK * kK, 1, 1.0 / 3.0); }     // fan_in 9
inline std::vector<float> bias1() { return values(kC1, 2, 0.1); }
inline std::vector<float> weight2() { return values(kC2 * kC1 * kK * kK, 3, 1.0 / 17.0); }  // fan_in 288
inline std::vector<float> bias2() { return values(kC2, 4, 0.1); }

/// What both sides print after one forward+backward, to check they agree: sum of y, sum of |grad| of
/// each weight, sum of the first bias's grad (it depends on the ReLU mask and conv2's weights).
struct Checksums {
  double y_sum = 0, gw1_abs = 0, gw2_abs = 0, gb1_sum = 0;
};

/// Relative agreement of two checksums (float32 sums over a million elements: 1e-3 is generous enough).
inline bool close(double a, double b) { return std::abs(a - b) <= 1e-3 * std::max({1.0, std::abs(a), std::abs(b)}); }

}  // namespace p6
