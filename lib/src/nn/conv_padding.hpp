#pragma once
// Internal: conv2d's padding strings ("same", "valid"), resolved to numbers in conv_variants.cpp.
#include <cstdint>
#include <string>

#include "kindling/nn/functional.hpp"

namespace kindling::nn::detail {

Tensor conv2d_padding_mode(const Tensor& x, const Tensor& weight, const Tensor& bias, functional::IntPair stride,
                           const std::string& padding, functional::IntPair dilation, std::int64_t groups);

}  // namespace kindling::nn::detail
