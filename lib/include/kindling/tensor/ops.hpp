#pragma once
/// @file
/// Free-function forms of the tensor operations (torch.add(a, b) ↔ kd::add(a, b)), plus ops that
/// take several tensors.
#include <optional>
#include <string>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling {

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
/// other - alpha * x: subtraction with the number on the left (torch.rsub; what `2 - x` calls).
Tensor rsub(const Tensor& x, Scalar other, Scalar alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& exponent);
Tensor pow(const Tensor& a, Scalar exponent);
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
/// 1 / x (what `2 / x` is made of: reciprocal(x) * 2, as in PyTorch).
Tensor reciprocal(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
/// log(1 + x), accurate for small x.
Tensor log1p(const Tensor& x);
/// exp(x) - 1, accurate for small x.
Tensor expm1(const Tensor& x);
/// The error function (the Gaussian CDF is (1 + erf(x / √2)) / 2).
Tensor erf(const Tensor& x);
/// floor/ceil/round/trunc keep the dtype (integers come back unchanged); round is half-to-even.
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
/// -1, 0 or 1 in x's dtype (0 for NaN, as in PyTorch 1.13).
Tensor sign(const Tensor& x);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
/// Python's a // b: the quotient rounded towards minus infinity (PyTorch 1.13's torch.floor_divide).
/// Integer division by zero raises. Not differentiable (its backward raises, as PyTorch's does).
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, Scalar b);
Tensor floor_divide(Scalar a, const Tensor& b);
/// Python's a % b: a - (a // b) * b, with the sign of b (torch.remainder).
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, Scalar b);
Tensor remainder(Scalar a, const Tensor& b);
/// x · log(y), 0 wherever x == 0 even if y == 0 (torch.xlogy); integer inputs compute in float32.
Tensor xlogy(const Tensor& x, const Tensor& y);
Tensor xlogy(const Tensor& x, Scalar y);
Tensor xlogy(Scalar x, const Tensor& y);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
/// Elementwise choice: condition ? a : b (condition is a bool tensor; all three broadcast).
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, Scalar b);
Tensor where(const Tensor& condition, Scalar a, const Tensor& b);
/// torch.matmul: dot, matrix-vector, matrix-matrix or batched products, by the ranks of a and b.
// ---- indexing with tensors (gather_scatter.cpp): positions are int64 tensors ----------------------
/// out[..., k, ...] = x[..., index[k], ...] along `dim` (index: 1-D).
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index);
/// out[i][j] = x[i][index[i][j]] for dim 1 (index has x's rank; out has index's shape).
Tensor gather(const Tensor& x, std::int64_t dim, const Tensor& index);
/// A copy of x with out[i][index[i][j]] = src[i][j] for dim 1.
Tensor scatter(const Tensor& x, std::int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& x, std::int64_t dim, const Tensor& index, Scalar value);
/// A copy of x with out[i][index[i][j]] += src[i][j] for dim 1 (repeated positions add up).
Tensor scatter_add(const Tensor& x, std::int64_t dim, const Tensor& index, const Tensor& src);
/// The coordinates of x's non-zero elements, one row each: [count, x.dim()] int64 (torch.nonzero).
Tensor nonzero(const Tensor& x);
/// x with `value` where the bool `mask` (broadcast) is true.
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value);

/// x.gather(dim, indices) after broadcasting x and indices against each other in every other dim
/// (torch.take_along_dim); without dim, on the flattened tensors.
Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<std::int64_t> dim = std::nullopt);

// ---- cutting, tiling, rotating (split_repeat.cpp) and Einstein sums (einsum.cpp) ----------------
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim = 0);
Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims = {});
/// torch.einsum: "ij,jk->ik" (matmul), "bij,bjk->bik", "i,i->", "i,j->ij", "ij->ji", "ii->i",
/// "...ij,...jk->...ik"; without "->" the output is the letters used once, in alphabetical order.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

// ---- rearranging and masking (shape_ops.cpp): new tensors, not views ----------------------------
/// The lower triangle of the last two dims: x[..., i, j] where j - i <= diagonal, else 0.
Tensor tril(const Tensor& x, std::int64_t diagonal = 0);
/// The upper triangle of the last two dims: x[..., i, j] where j - i >= diagonal, else 0.
Tensor triu(const Tensor& x, std::int64_t diagonal = 0);
/// x reversed along each of `dims` (a copy, as in PyTorch).
Tensor flip(const Tensor& x, IntArrayRef dims);
/// a ⊗ b for vectors a: [n], b: [m] -> [n, m] (a.reshape({-1, 1}) * b, as PyTorch computes it).
Tensor outer(const Tensor& a, const Tensor& b);
/// True where any / every element (along dim) is non-zero; uint8 inputs give uint8, as in PyTorch.
Tensor any(const Tensor& x);
Tensor any(const Tensor& x, std::int64_t dim, bool keepdim = false);
Tensor all(const Tensor& x);
Tensor all(const Tensor& x, std::int64_t dim, bool keepdim = false);

// ---- ordering (sort.cpp) ------------------------------------------------------------------------
std::pair<Tensor, Tensor> sort(const Tensor& x, std::int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& x, std::int64_t dim = -1, bool descending = false);
std::pair<Tensor, Tensor> topk(const Tensor& x, std::int64_t k, std::int64_t dim = -1, bool largest = true,
                               bool sorted = true);

Tensor matmul(const Tensor& a, const Tensor& b);
/// Strictly 2-D x 2-D: [n, k] @ [k, m].
Tensor mm(const Tensor& a, const Tensor& b);
/// Batches of matrices without broadcasting: [B, n, k] @ [B, k, m].
Tensor bmm(const Tensor& a, const Tensor& b);
/// Matrix times vector: [n, k] @ [k].
Tensor mv(const Tensor& a, const Tensor& b);
/// Dot product of two vectors of the same length (a 0-d result).
Tensor dot(const Tensor& a, const Tensor& b);
/// beta * bias + alpha * (a @ b) in one op -- what a Linear layer computes (AddmmBackward0).
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Scalar beta = 1, Scalar alpha = 1);
Tensor softmax(const Tensor& x, std::int64_t dim);
Tensor log_softmax(const Tensor& x, std::int64_t dim);
/// Joins tensors along an existing dimension.
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// Joins same-shaped tensors along a new dimension (how a DataLoader makes a batch).
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// True when |a - b| <= atol + rtol * |b| everywhere after broadcasting a and b together, like
/// torch.allclose (NaNs count as equal if equal_nan). Mixed dtypes are refused, as in PyTorch.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);
/// True when shapes and values are equal.
bool equal(const Tensor& a, const Tensor& b);

}  // namespace kindling
