#pragma once
/// @file
/// torch.nn.init: fill a parameter in place with values drawn the way PyTorch's layers do. Every
/// function works under no-grad (a parameter that requires grad can be filled), draws from the
/// global generator seeded by kd::manual_seed, and returns the tensor.
///
/// Why the scaling matters: with weights of variance 1/fan_in, each layer keeps the variance of its
/// input roughly constant, so signals neither explode nor vanish through a deep network.
#include <cstdint>
#include <string>
#include <utility>

#include "kindling/tensor/tensor.hpp"

namespace kindling::nn::init {

/// Which fan keeps its variance: the forward pass's (fan_in) or the backward pass's (fan_out).
enum class FanMode { FanIn, FanOut };

/// The recommended gain for a nonlinearity: "linear", "conv2d", "sigmoid" → 1, "tanh" → 5/3,
/// "relu" → √2, "leaky_relu" → √(2 / (1 + slope²)), "selu" → 3/4.
double calculate_gain(const std::string& nonlinearity, double param = 0.01);
/// (fan_in, fan_out) of a weight of at least 2 dims: [out, in, k...] → (in·k…, out·k…).
std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

/// Uniform in [a, b).
Tensor& uniform_(Tensor& tensor, double a = 0.0, double b = 1.0);
/// Normal with the given mean and standard deviation.
Tensor& normal_(Tensor& tensor, double mean = 0.0, double std = 1.0);
Tensor& constant_(Tensor& tensor, double value);
Tensor& zeros_(Tensor& tensor);
Tensor& ones_(Tensor& tensor);
/// Glorot: uniform in ±gain·√(6 / (fan_in + fan_out)).
Tensor& xavier_uniform_(Tensor& tensor, double gain = 1.0);
/// Glorot: normal with std gain·√(2 / (fan_in + fan_out)).
Tensor& xavier_normal_(Tensor& tensor, double gain = 1.0);
/// He: uniform in ±gain·√(3 / fan) with gain = calculate_gain(nonlinearity, a). PyTorch's Linear
/// and Conv2d use a = √5, which makes the bound 1/√fan_in.
Tensor& kaiming_uniform_(Tensor& tensor, double a = 0.0, FanMode mode = FanMode::FanIn,
                         const std::string& nonlinearity = "leaky_relu");
/// He: normal with std gain / √fan.
Tensor& kaiming_normal_(Tensor& tensor, double a = 0.0, FanMode mode = FanMode::FanIn,
                        const std::string& nonlinearity = "leaky_relu");

}  // namespace kindling::nn::init
