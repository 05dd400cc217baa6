#pragma once
/// @file
/// Chapter 1's exercises: re-implement six small pieces of the tensor layer yourself. Each function has
/// the same semantics as its library counterpart (named in its comment); the graded tests compare the
/// two on many shapes, including views whose strides are not row-major.
///
/// Write your answers in the matching .cpp files of this folder, then run `make grade CH=01`.
#include <cstdint>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling::exercises::ch01 {

// ---- ex1: where does an element live? ------------------------------------------------------------

/// Row-major strides of `shape`, in elements: the last dimension moves fastest. {2, 3, 4} -> {12, 4, 1}.
/// A size-0 or size-1 dimension counts as size 1 when it multiplies the strides to its left.
/// Library counterpart: kindling::contiguous_strides.
Strides row_major_strides(const Shape& shape);

/// The position in `t`'s storage (in elements, from the start of the storage) of element `index`:
/// storage_offset + sum(index[d] * stride[d]). Negative indices count from the end, like Python.
/// Throws IndexError when the number of indices differs from t.dim() or an index is out of range.
/// Library counterpart: `t.index({i, j, ...}).storage_offset()`.
std::int64_t element_offset(const Tensor& t, const std::vector<std::int64_t>& index);

// ---- ex2: broadcasting ---------------------------------------------------------------------------

/// The shape two tensors broadcast to (NumPy/PyTorch rules: align on the right, sizes must be equal
/// or one of them 1). Throws ShapeError naming both shapes (use shape_str) when they cannot broadcast.
/// Library counterpart: kindling::broadcast_shapes.
Shape broadcast_shape(const Shape& a, const Shape& b);

// ---- ex3: contiguous() by hand -------------------------------------------------------------------

/// A row-major copy of `t` in a fresh storage, for any strides (permuted, sliced with a step,
/// expanded with stride 0) and any dtype. Walk t's strides yourself; do not call contiguous(),
/// clone(), copy_() or to(). Library counterpart: `t.clone()` of a non-contiguous tensor /
/// `t.contiguous()`.
Tensor contiguous_copy(const Tensor& t);

// ---- ex4: image layout ---------------------------------------------------------------------------

/// An image batch [N, H, W, C] (how image files and NumPy store pixels) seen as [N, C, H, W] (what
/// convolutions want) WITHOUT copying: the result shares t's storage. A single image [H, W, C] gives
/// [C, H, W]. Any other rank throws ShapeError saying which layout was expected.
/// Library counterpart: `t.permute({0, 3, 1, 2})`.
Tensor hwc_to_chw(const Tensor& images);

/// The first step of an image pipeline (torchvision's ToTensor for a batch): uint8 pixels
/// [N, H, W, C] (or one image [H, W, C]) in 0..255 -> a contiguous float32 [N, C, H, W] in [0, 1].
/// Throws DTypeError unless the input is uint8, ShapeError on a wrong rank.
Tensor images_to_tensor(const Tensor& images);

// ---- ex5: a softmax that never overflows ---------------------------------------------------------

/// softmax along `dim` (negative counts from the end): exp(x - max) / sum(exp(x - max)), so logits
/// of 1000 give finite probabilities. Float32 and float64 inputs, any strides.
/// Library counterpart: kindling::softmax.
Tensor softmax(const Tensor& x, std::int64_t dim);

// ---- ex6: a reduction along one dimension --------------------------------------------------------

/// Sum along `dim` (negative counts from the end); with keepdim the reduced dimension stays with size
/// 1. Write the loop yourself (no sum()/mean()). Result dtype like PyTorch: float32 and float64 stay,
/// int64, uint8 and bool sum to int64. An empty dimension sums to 0; a 0-d tensor accepts dim 0 or -1.
/// Library counterpart: `x.sum(dim, keepdim)`.
Tensor sum_dim(const Tensor& x, std::int64_t dim, bool keepdim = false);

}  // namespace kindling::exercises::ch01
