#pragma once
/// @file
/// Readable indexing, LibTorch-style: `x[0]`, `x.index({Slice(1, None), 0})` is Python's `x[1:, 0]`.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <variant>

namespace kindling::indexing {

/// Python's `None` inside a slice (an open end) or as an index (a new axis of size 1).
struct NoneType {};
inline constexpr NoneType None{};
/// Python's `...`: as many full slices as needed.
struct EllipsisType {};
inline constexpr EllipsisType Ellipsis{};

/// One end of a slice: an integer (may be negative) or None.
struct SliceBound {
  std::optional<std::int64_t> value;
  SliceBound(NoneType) {}
  SliceBound(std::int64_t v) : value(v) {}
  SliceBound(int v) : value(v) {}
};

/// Python's `start:stop:step`. `Slice()` is `:`.
struct Slice {
  SliceBound start = None, stop = None;
  std::int64_t step = 1;
  Slice() = default;
  Slice(SliceBound start_, SliceBound stop_ = None, std::int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
};

/// One entry of an index list: an integer (selects, dropping the dimension), a Slice, None or Ellipsis.
using TensorIndex = std::variant<std::int64_t, Slice, NoneType, EllipsisType>;

}  // namespace kindling::indexing
