#pragma once
/// @file
/// Element types and PyTorch's type-promotion rules.
#include <cstddef>
#include <cstdint>
#include <string>

namespace kindling {

/// The element type of a tensor.
enum class DType : std::uint8_t { Bool, UInt8, Int64, Float32, Float64 };

inline constexpr DType kBool = DType::Bool;
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;

/// Bytes per element (1, 1, 8, 4, 8).
std::size_t element_size(DType dtype);
/// PyTorch's name without the "torch." prefix: "float32", "int64", ...
const char* dtype_name(DType dtype);
bool is_floating_point(DType dtype);
/// The dtype a binary op computes in, following torch.result_type for two tensors of the same
/// "category": bool < uint8 < int64 < float32 < float64.
DType promote_types(DType a, DType b);

/// Maps a C++ type to its DType (`dtype_of<float> == kFloat32`).
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<bool>() { return kBool; }
template <> constexpr DType dtype_of<std::uint8_t>() { return kUInt8; }
template <> constexpr DType dtype_of<std::int64_t>() { return kInt64; }
template <> constexpr DType dtype_of<float>() { return kFloat32; }
template <> constexpr DType dtype_of<double>() { return kFloat64; }

}  // namespace kindling
