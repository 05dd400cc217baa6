#pragma once
/// @file
/// Shapes and strides, and helpers every op uses on them.
#include <cstdint>
#include <string>
#include <vector>

namespace kindling {

/// Sizes of each dimension, outermost first: a batch of 32 RGB images is {32, 3, 224, 224}.
using Shape = std::vector<std::int64_t>;
/// How many *elements* to step in storage to move by one along each dimension.
using Strides = std::vector<std::int64_t>;

/// "[2, 3]"
std::string shape_str(const Shape& shape);
/// Product of the sizes (1 for a 0-d tensor).
std::int64_t numel_of(const Shape& shape);
/// Row-major ("C-contiguous") strides: the last dimension moves fastest. {2,3,4} -> {12,4,1}.
Strides contiguous_strides(const Shape& shape);
/// NumPy/PyTorch broadcasting: align from the right; sizes must match or one of them be 1.
/// Throws ShapeError naming `op` and both shapes when they cannot be broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op = "broadcast");
/// Turns a possibly negative dimension into 0..ndim-1 (ndim 0 accepts -1 and 0, like PyTorch).
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim, const char* op);

}  // namespace kindling
