#pragma once
/// @file
/// Element types and PyTorch's type-promotion rules.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kindling/tensor/half.hpp"

namespace kindling {

/// The element type of a tensor. Float16 and BFloat16 come last so that the first five
/// keep their values in files and tests; promote_types() does not rely on the order.
enum class DType : std::uint8_t { Bool, UInt8, Int64, Float32, Float64, Float16, BFloat16 };

inline constexpr DType kBool = DType::Bool;
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kHalf = DType::Float16;
inline constexpr DType kBFloat16 = DType::BFloat16;

/// Bytes per element (1, 1, 8, 4, 8, 2, 2).
std::size_t element_size(DType dtype);
/// PyTorch's name without the "torch." prefix: "float32", "int64", ...
const char* dtype_name(DType dtype);
bool is_floating_point(DType dtype);
/// float16 or bfloat16: stored in 16 bits, computed in float32 (as PyTorch's CPU kernels do).
bool is_reduced_floating_point(DType dtype);
/// The dtype a binary op computes in, following torch.promote_types: bool < uint8 < int64 <
/// float16, bfloat16 < float32 < float64, and float16 with bfloat16 gives float32 (neither holds
/// the other: float16 has more digits, bfloat16 more range).
DType promote_types(DType a, DType b);

/// Maps a C++ type to its DType (`dtype_of<float> == kFloat32`).
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<bool>() { return kBool; }
template <> constexpr DType dtype_of<std::uint8_t>() { return kUInt8; }
template <> constexpr DType dtype_of<std::int64_t>() { return kInt64; }
template <> constexpr DType dtype_of<float>() { return kFloat32; }
template <> constexpr DType dtype_of<double>() { return kFloat64; }
template <> constexpr DType dtype_of<Half>() { return kFloat16; }
template <> constexpr DType dtype_of<BFloat16>() { return kBFloat16; }

}  // namespace kindling
