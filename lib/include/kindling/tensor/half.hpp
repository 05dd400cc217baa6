#pragma once
/// @file
/// The two 16-bit floating-point types of mixed precision, stored as their bits:
///
///   float32   s eeeeeeee mmmmmmmmmmmmmmmmmmmmmmm   8-bit exponent, 23-bit mantissa
///   float16   s eeeee mmmmmmmmmm                   5-bit exponent, 10-bit mantissa (max 65504)
///   bfloat16  s eeeeeeee mmmmmmm                   float32's exponent, 7-bit mantissa
///
/// A bfloat16 is the top half of a float32: same range, fewer digits. A float16 has more digits
/// than a bfloat16 but a much smaller range, so large values overflow to inf and small gradients
/// underflow to zero -- the reason for GradScaler. Arithmetic converts to float32 and rounds the
/// result back, exactly like PyTorch's CPU kernels (`Half` and `BFloat16` in c10).
#include <bit>
#include <cstdint>

namespace kindling {
namespace detail {

/// float32 -> float16 bits, rounding to nearest, ties to even (IEEE 754's default): values beyond
/// float16's range become inf, values below its smallest normal (2^-14) become subnormals or zero,
/// NaN stays NaN (quiet, sign kept, payload dropped: 0x7E00 | sign -- as PyTorch writes it).
///
constexpr std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t exponent = (x >> 23) & 0xFFu;  // biased by 127
  std::uint32_t mantissa = x & 0x7FFFFFu;
  if (exponent == 0xFF) return sign | (mantissa ? 0x7E00u : 0x7C00u);  // NaN, inf
  const int e = static_cast<int>(exponent) - 127 + 15;  // float16's biased exponent
  if (e >= 31) return sign | 0x7C00u;                    // too large: inf
  // Keep the top bits of the mantissa (with its implicit 1 when subnormal), round the rest.
  std::uint32_t kept, rest, halfway;
  if (e > 0) {  // a normal float16: 23 -> 10 mantissa bits
    kept = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
    rest = mantissa & 0x1FFFu;
    halfway = 0x1000u;
  } else {  // a subnormal float16 (units of 2^-24), or zero
    const int shift = 14 - e;  // the 24-bit significand, shifted into units of 2^-24
    if (shift > 24) return sign;  // below half the smallest subnormal: rounds to zero
    mantissa |= 0x800000u;
    kept = mantissa >> shift;
    rest = mantissa & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  }
  // Ties to even; a carry out of the mantissa raises the exponent (and 65520 becomes inf).
  if (rest > halfway || (rest == halfway && (kept & 1u))) ++kept;
  return static_cast<std::uint16_t>(sign | kept);
}


/// float16 bits -> float32 (exact: every float16 is a float32).
constexpr float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));  // inf, NaN
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);  // ±0
    // Subnormal: normalise it (float32 has the range to make it a normal number).
    int e = -1;
    do {
      mantissa <<= 1;
      ++e;
    } while ((mantissa & 0x400u) == 0);
    return std::bit_cast<float>(sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 |
                                ((mantissa & 0x3FFu) << 13));
  }
  return std::bit_cast<float>(sign | (exponent + 127 - 15) << 23 | (mantissa << 13));
}

/// float32 -> bfloat16 bits: drop the low 16 bits, rounding to nearest, ties to even. Overflow
/// to inf and subnormals follow from the same rounding (same exponent range as float32). NaN
/// becomes the quiet NaN 0x7FC0 (c10's rule; PyTorch 1.13's vectorised float32 copy writes 0xFFFF
/// instead, another NaN).
///
constexpr std::uint16_t float_to_bfloat16_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0u;  // NaN
  const std::uint32_t lsb = (x >> 16) & 1u;             // the last bit we keep
  return static_cast<std::uint16_t>((x + 0x7FFFu + lsb) >> 16);
}


constexpr float bfloat16_bits_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace detail

/// IEEE 754 half precision (`torch.float16`, `torch.half`).
struct Half {
  std::uint16_t bits = 0;
  constexpr Half() = default;
  constexpr Half(float f) : bits(detail::float_to_half_bits(f)) {}  // NOLINT: implicit, like c10::Half
  constexpr operator float() const { return detail::half_bits_to_float(bits); }
  static constexpr Half from_bits(std::uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

/// Brain floating point (`torch.bfloat16`): float32's range with 8 significant bits.
struct BFloat16 {
  std::uint16_t bits = 0;
  constexpr BFloat16() = default;
  constexpr BFloat16(float f) : bits(detail::float_to_bfloat16_bits(f)) {}  // NOLINT: implicit
  constexpr operator float() const { return detail::bfloat16_bits_to_float(bits); }
  static constexpr BFloat16 from_bits(std::uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

}  // namespace kindling
