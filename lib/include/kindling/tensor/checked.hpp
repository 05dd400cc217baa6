#pragma once
/// @file
/// Checked arithmetic for sizes and untrusted numbers. A file, a state dict or a user's argument can
/// claim any size: multiplying sizes in `std::int64_t` can overflow (undefined behaviour) and wrap to
/// a small number, so a loader would allocate a few bytes for a tensor that claims 2^61 elements;
/// casting a `double` such as 1e300 or NaN to an integer is undefined behaviour too. Every size that
/// did not come from our own code goes through these helpers, which throw a clear kindling::Error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kindling/tensor/dtype.hpp"
#include "kindling/tensor/shape.hpp"

namespace kindling::checked {

/// a * b, or false when the exact product does not fit in int64 (`out` is then unspecified).
inline bool mul(std::int64_t a, std::int64_t b, std::int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
/// a + b, or false when the exact sum does not fit in int64.
inline bool add(std::int64_t a, std::int64_t b, std::int64_t& out) { return !__builtin_add_overflow(a, b, &out); }

/// Number of elements of `shape`; throws ShapeError naming `op` when a size is negative or the
/// product overflows int64 (PyTorch: "Storage size calculation overflowed").
std::int64_t numel(IntArrayRef shape, std::string_view op);

/// Bytes of a contiguous tensor of `shape` and `dtype`, checked like numel() and also against the
/// largest size an allocation can have (PTRDIFF_MAX).
std::size_t storage_nbytes(const Shape& shape, DType dtype, std::string_view op);

/// True when `v` is finite and its integer part lies in [lo, hi] (no undefined behaviour to cast).
bool fits_int64(double v, std::int64_t lo = INT64_MIN, std::int64_t hi = INT64_MAX);

/// `v` as an int64 when it is a whole number in [lo, hi]; otherwise throws ValueError naming `what`
/// (e.g. "load_checkpoint: model.ckpt: \"epoch\""), with the value and the range.
std::int64_t to_int64(double v, std::string_view what, std::int64_t lo = INT64_MIN, std::int64_t hi = INT64_MAX);

/// `v` when finite, otherwise throws ValueError naming `what` (NaN or infinity where a number is due).
double finite(double v, std::string_view what);

/// "1.5 GiB": a byte count for error messages.
std::string human_bytes(double bytes);

}  // namespace kindling::checked
