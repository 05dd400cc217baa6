#pragma once
/// @file
/// Chapter 1's exercise pieces: the functions of the tensor layer that *you* write.
///
/// Each piece is declared here (or, for the public ones, in a public header named below), called by
/// the library at the point named in its comment, and defined in an answer file: your
/// `exercises/ch01/exK_*.cpp`, or the reference `solutions/ch01/exK_*.cpp`. The build compiles one of the
/// two into kindling_tensor, so every tensor the library makes uses your strides, every view your
/// geometry, every copy your loop. `make grade CH=01` tests them; `make milestone CH=01` runs a small
/// classifier on them.
///
///   ex1  kindling::contiguous_strides (shape.hpp)   the strides of every new tensor (make_tensor)
///        Tensor::is_contiguous (tensor.hpp)          asked by contiguous(), view(), matmul, ...
///   ex2  permute_view, select_view                  behind Tensor::permute, select, x[i], index()
///   ex3  kindling::broadcast_shapes (shape.hpp)     every elementwise op's output shape
///        expand_view                                behind Tensor::expand / expand_as
///   ex4  strided_copy                               behind contiguous(), clone(), copy_(), cat, stack
///   ex5  softmax_forward                            behind softmax and log_softmax (cross-entropy too)
///   ex6  sum_keepdim                                behind sum and mean
///
/// The library does the bookkeeping around each piece (argument checks it shares with other ops, and
/// the autograd record of chapter 2), so a piece only computes. Pieces never see tensors that require
/// grad: the library hands them a detached alias, and any op you call inside records nothing.
#include <cstdint>
#include <vector>

#include "internal.hpp"

namespace kindling::detail {

// ---- ex2: views --------------------------------------------------------------------------------------

/// x.permute(dims): a view of x's storage whose dimension i is x's dimension dims[i] (sizes and strides
/// move together; the offset stays). `dims` lists every dimension exactly once; negative entries count
/// from the end. Throws ShapeError when the count is wrong or a dimension repeats, IndexError (from
/// wrap_dim) when one is out of range. Build the result with make_view (internal.hpp).
Tensor permute_view(const Tensor& x, IntArrayRef dims);

/// x.select(dim, index) (and x[index] for dim 0): the view of x with dimension `dim` fixed at `index` —
/// one fewer dimension, the offset moved by index * stride(dim). Negative dim and index count from the
/// end. Throws IndexError for a 0-d tensor or an index out of range (name the size in the message).
Tensor select_view(const Tensor& x, std::int64_t dim, std::int64_t index);

// ---- ex3: broadcasting -------------------------------------------------------------------------------

/// x.expand(sizes): x seen with shape `sizes` without copying. sizes may add leading dimensions; each
/// of x's own dimensions keeps its size (or -1: "keep") or, when it is 1, is stretched to the new size
/// with stride 0. A new leading dimension gets stride 0 when its size is not 1. Throws ShapeError when
/// sizes has fewer dimensions than x, a size is negative (other than -1 on x's own dimensions), -1 is
/// given for a new dimension, or a dimension whose size is not 1 would change.
Tensor expand_view(const Tensor& x, const Shape& sizes);

// ---- ex4: the strided copy -----------------------------------------------------------------------------

/// Copies every element of `src` into `dst`: both have the same shape and dtype, but each has its own
/// strides and storage offset (a transposed view, a stepped slice, an expanded tensor with stride 0...).
/// Element [i, j, ...] of src goes to element [i, j, ...] of dst; the two do not overlap. Any dtype:
/// element_size() bytes per element. This is the loop under contiguous(), clone(), copy_(), cat and
/// stack — the one the reference makes fast, with one memcpy-like pass per contiguous row.
void strided_copy(const Tensor& dst, const Tensor& src);

// ---- ex5: softmax ------------------------------------------------------------------------------------

/// softmax (log == false) or log_softmax (log == true) of x along `dim` (already in 0..x.dim()-1; a 0-d
/// x has dim 0), as a new tensor of x's shape and dtype (float32 or float64, any strides). Must not
/// overflow: logits of 1000 give finite probabilities, and log_softmax is finite where softmax
/// underflows to 0.
Tensor softmax_forward(const Tensor& x, std::int64_t dim, bool log);

// ---- ex6: a reduction ----------------------------------------------------------------------------------

/// The sum of x over every dimension d with reduce[d] true, in "keepdim" shape (x's shape with 1 at each
/// reduced dimension; a 0-d x gives a 0-d result), as a fresh contiguous tensor accumulated in float64
/// when x is floating-point and in int64 otherwise (bool, uint8, int64). reduce.size() == x.dim(). An
/// empty reduction sums to 0. The library converts the result to the output dtype and drops the reduced
/// dimensions unless keepdim; mean divides it by the count.
Tensor sum_keepdim(const Tensor& x, const std::vector<bool>& reduce);

/// `x` itself, or a detached alias of it when it requires grad (what the library passes to a piece).
inline Tensor piece_input(const Tensor& x) { return x.defined() && x.impl()->requires_grad() ? x.detach() : x; }

}  // namespace kindling::detail
