#pragma once
/// @file
/// Shapes and strides, and helpers every op uses on them.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "kindling/tensor/small_vector.hpp"

namespace kindling {

/// Sizes of each dimension, outermost first: a batch of 32 RGB images is {32, 3, 224, 224}.
/// It behaves like a std::vector<int64_t> (and converts to and from one), but keeps up to six
/// dimensions inside the object: creating a tensor then allocates no separate arrays for its shape
/// and strides (see small_vector.hpp for why that matters).
using Shape = SmallVector<std::int64_t, 6>;
/// How many *elements* to step in storage to move by one along each dimension.
using Strides = SmallVector<std::int64_t, 6>;

/// A read-only view of a list of integers (dimensions, sizes) owned by someone else, like PyTorch's
/// IntArrayRef: a function taking one accepts `{0, 2}`, a std::vector, or a Shape without copying.
/// Only for parameters: it must not outlive the list it looks at.
class IntArrayRef {
 public:
  constexpr IntArrayRef() = default;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"  // a parameter type: the list outlives the call
#endif
  constexpr IntArrayRef(std::initializer_list<std::int64_t> list)  // NOLINT(google-explicit-constructor)
      : data_(list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  IntArrayRef(const std::vector<std::int64_t>& v)  // NOLINT(google-explicit-constructor)
      : data_(v.data()), size_(v.size()) {}
  template <std::size_t N>
  IntArrayRef(const SmallVector<std::int64_t, N>& v)  // NOLINT(google-explicit-constructor)
      : data_(v.data()), size_(v.size()) {}
  constexpr IntArrayRef(const std::int64_t* data, std::size_t size) : data_(data), size_(size) {}

  constexpr const std::int64_t* begin() const { return data_; }
  constexpr const std::int64_t* end() const { return data_ + size_; }
  constexpr const std::int64_t* data() const { return data_; }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr std::int64_t operator[](std::size_t i) const { return data_[i]; }
  std::vector<std::int64_t> vec() const { return {begin(), end()}; }

 private:
  const std::int64_t* data_ = nullptr;
  std::size_t size_ = 0;
};

/// "[2, 3]"
std::string shape_str(IntArrayRef shape);
/// Product of the sizes (1 for a 0-d tensor).
std::int64_t numel_of(IntArrayRef shape);
/// Row-major ("C-contiguous") strides: the last dimension moves fastest. {2,3,4} -> {12,4,1}.
Strides contiguous_strides(const Shape& shape);
/// NumPy/PyTorch broadcasting: align from the right; sizes must match or one of them be 1.
/// Throws ShapeError naming `op` and both shapes when they cannot be broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op = "broadcast");
/// Turns a possibly negative dimension into 0..ndim-1 (ndim 0 accepts -1 and 0, like PyTorch).
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim, const char* op);

}  // namespace kindling
