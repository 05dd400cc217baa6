// Cutting, tiling and rotating along dimensions: split, chunk, repeat, roll and take_along_dim.
//
//   x: [5, 3]   x.split(2) -> [2, 3], [2, 3], [1, 3] (views)    x.chunk(2) -> [3, 3], [2, 3] (views)
//   x: [2, 3]   x.repeat({2, 2}) -> [4, 6] (tiled)               x.roll(1, 1): each row rotated right
//
// Every op here is made of ops that autograd already knows (narrow, expand, reshape, cat, gather), so
// none needs a Function of its own: a piece of a split is a narrow view (SliceBackward0 in PyTorch's
// graphs, SplitBackward0 there), and repeat's gradient is expand's, the sum over the copies.
#include <numeric>
#include <string>
#include <vector>

#include "internal.hpp"
#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

std::string list_str(IntArrayRef v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void refuse_0d(const Tensor& x, const char* op) {
  check_defined(x, op);
  if (x.dim() == 0) {
    throw ShapeError(std::string(op) + " expects at least a 1-dimensional tensor (got a 0-d tensor), as in "
                     "PyTorch. Hint: reshape({1}) it first.");
  }
}

}  // namespace

std::vector<Tensor> Tensor::split(std::int64_t split_size, std::int64_t dim) const {
  refuse_0d(*this, "split");
  const std::int64_t d = wrap_dim(dim, this->dim(), "split");
  const std::int64_t n = size(d);
  if (split_size < 0) {
    throw ValueError("split expects split_size be non-negative, but got split_size=" + std::to_string(split_size) +
                     ". Hint: split(k) cuts pieces of k elements along the dim.");
  }
  if (split_size == 0 && n != 0) {
    throw ValueError("split: split_size can only be 0 if dimension size is 0, but got dimension size of " +
                     std::to_string(n) + " (shape " + shape_str(shape()) + ").");
  }
  if (n == 0) return {*this};
  std::vector<Tensor> pieces;
  for (std::int64_t start = 0; start < n; start += split_size) pieces.push_back(narrow(d, start, std::min(split_size, n - start)));
  return pieces;
}

std::vector<Tensor> Tensor::split(IntArrayRef sizes, std::int64_t dim) const {
  refuse_0d(*this, "split");
  const std::int64_t d = wrap_dim(dim, this->dim(), "split");
  for (std::int64_t s : sizes) {
    if (s < 0) {
      throw ValueError("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=" +
                       list_str(sizes) + ".");
    }
  }
  const std::int64_t total = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
  if (total != size(d)) {
    throw ValueError("split_with_sizes expects split_sizes to sum exactly to " + std::to_string(size(d)) +
                     " (input tensor's size at dimension " + std::to_string(d) + "), but got split_sizes=" +
                     list_str(sizes) + ". Hint: the sizes must add up to the dimension's size.");
  }
  std::vector<Tensor> pieces;
  std::int64_t start = 0;
  for (std::int64_t s : sizes) {
    pieces.push_back(narrow(d, start, s));
    start += s;
  }
  return pieces;
}

std::vector<Tensor> Tensor::chunk(std::int64_t chunks, std::int64_t dim) const {
  refuse_0d(*this, "chunk");
  if (chunks <= 0) {
    throw ValueError("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks) + ".");
  }
  const std::int64_t d = wrap_dim(dim, this->dim(), "chunk");
  const std::int64_t n = size(d);
  // PyTorch's rule: pieces of ceil(n / chunks), so there may be fewer than `chunks` of them.
  if (n == 0) return std::vector<Tensor>(static_cast<std::size_t>(chunks), narrow(d, 0, 0));
  return split((n + chunks - 1) / chunks, d);
}

Tensor Tensor::repeat(IntArrayRef repeats) const {
  check_defined(*this, "repeat");
  const auto nr = static_cast<std::int64_t>(repeats.size());
  if (nr < dim()) {
    throw ShapeError("repeat: Number of dimensions of repeat dims (" + std::to_string(nr) + ") can not be smaller "
                     "than number of dimensions of tensor (" + std::to_string(dim()) + ", shape " +
                     shape_str(shape()) + "). Hint: give one count per dimension, e.g. repeat({2, 1}).");
  }
  // x: [s0, s1] seen as [1, s0, 1, s1], expanded to [r0, s0, r1, s1], then merged to [r0*s0, r1*s1]
  // (leading dims of size 1 are added first when there are more repeats than dims).
  Shape padded(static_cast<std::size_t>(nr - dim()), 1);
  for (auto s : shape()) padded.push_back(s);
  Shape interleaved, expanded, result;
  for (std::int64_t i = 0; i < nr; ++i) {
    const std::int64_t r = repeats[static_cast<std::size_t>(i)], s = padded[static_cast<std::size_t>(i)];
    if (r < 0) {
      throw ValueError("repeat: Trying to create tensor with negative dimension " + std::to_string(r) +
                       ": repeats " + list_str(repeats) + ". Hint: repeat counts are 0 or more.");
    }
    interleaved.insert(interleaved.end(), {1, s});
    expanded.insert(expanded.end(), {r, s});
    std::int64_t rs = 0;
    if (!checked::mul(r, s, rs)) {
      throw ValueError("repeat: the result would have more than 2^63 elements along dim " + std::to_string(i) + ".");
    }
    result.push_back(rs);
  }
  return reshape(interleaved).expand(expanded).reshape(result);
}

Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  check_defined(*this, "roll");
  if (dims.empty()) {  // roll the flattened tensor, then restore the shape
    if (shifts.size() != 1) {
      throw ValueError("roll: shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
                       ", dims:0. Hint: without dims, give one shift (it rolls the flattened tensor).");
    }
    return reshape({-1}).roll(shifts, {0}).reshape(shape());
  }
  if (shifts.size() != dims.size()) {
    throw ValueError("roll: shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
                     ", dims:" + std::to_string(dims.size()) + ". Hint: one shift per dim.");
  }
  Tensor out = *this;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::int64_t d = wrap_dim(dims[i], std::max<std::int64_t>(dim(), 1), "roll");
    if (out.dim() == 0) continue;  // a 0-d tensor has nothing to rotate
    const std::int64_t n = out.size(d);
    if (n == 0) continue;
    const std::int64_t s = ((shifts[i] % n) + n) % n;  // elements move s places right (a Python modulo)
    if (s == 0) continue;
    out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out.is_same(*this) ? clone() : out;  // roll always returns a new tensor
}

Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<std::int64_t> dim) {
  check_defined(x, "take_along_dim");
  check_defined(indices, "take_along_dim");
  if (indices.dtype() != kInt64) {
    throw DTypeError("torch.take_along_dim(): dtype of indices should be Long but got " + dname(indices.dtype()) +
                     ". Hint: positions are int64, e.g. indices.to(kd::kInt64).");
  }
  if (!dim) return x.reshape({-1}).gather(0, indices.reshape({-1}));
  if (x.dim() != indices.dim()) {
    throw ShapeError("torch.take_along_dim(): input and indices should have the same number of dimensions, but got " +
                     std::to_string(x.dim()) + " dimensions for input, and " + std::to_string(indices.dim()) +
                     " dimensions for indices. Hint: unsqueeze the indices, e.g. argmax(dim, /*keepdim=*/true).");
  }
  if (x.dim() == 0) return x.reshape({-1}).gather(0, indices.reshape({-1})).reshape({});
  const std::int64_t d = wrap_dim(*dim, x.dim(), "take_along_dim");
  // Both broadcast against each other in every dim but d, where each keeps its own size.
  Shape xs = x.shape(), is = indices.shape();
  xs[static_cast<std::size_t>(d)] = 1;
  is[static_cast<std::size_t>(d)] = 1;
  Shape b = broadcast_shapes(xs, is, "take_along_dim");
  Shape bx = b, bi = b;
  bx[static_cast<std::size_t>(d)] = x.size(d);
  bi[static_cast<std::size_t>(d)] = indices.size(d);
  return x.expand(bx).gather(d, indices.expand(bi));
}

std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim) { return x.split(split_size, dim); }
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim) { return x.chunk(chunks, dim); }
Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims) { return x.roll(shifts, dims); }

}  // namespace kindling
