#pragma once
/// @file
/// Readable indexing, LibTorch-style: `x[0]`, `x.index({Slice(1, None), 0})` is Python's `x[1:, 0]`.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <variant>

namespace kindling {
class Tensor;
}

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

/// A tensor used as an index: a bool mask (`x[x > 0]`, uint8 too) or int64 positions (`x[idx]`),
/// PyTorch's advanced indexing. Held by pointer so this header needs only Tensor's name.
struct TensorArg {
  std::shared_ptr<const Tensor> tensor;
  TensorArg(const Tensor& t);  // NOLINT(google-explicit-constructor): x.index({mask}) reads like x[mask]
};

/// One entry of an index list: an integer (selects, dropping the dimension), a Slice, None, Ellipsis,
/// or a tensor (a mask or positions: the result is then a copy, not a view).
using TensorIndex = std::variant<std::int64_t, Slice, NoneType, EllipsisType, TensorArg>;

}  // namespace kindling::indexing
