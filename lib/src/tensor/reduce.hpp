#pragma once
// Reduction loops (sum, mean, max, var, softmax...): the strided-iteration ideas of loops.hpp applied
// to "many inputs fall into one output".
//
// Two shapes of loop cover every reduction here:
//   * reduce_loop: an accumulator tensor `acc` in keepdim shape (size 1 along reduced dims) is walked
//     together with the input, with byte stride 0 along the reduced dims. Each innermost row is then
//     either a *row reduction* (acc stride 0: sum a row into one number — `x.sum(-1)`) or a
//     *vertical accumulation* (acc stride != 0: acc[i] += x[i], vectorised — `x.sum(0)`).
//   * for_each_lane: visits every 1-D lane of the input along one dim (max/argmax/var along a dim need
//     the position inside the lane, not just the values).
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "loops.hpp"

namespace kindling::detail {

/// Which dims an op reduces: wraps negative dims, refuses duplicates; an empty list means "all".
inline std::vector<bool> reduce_mask(const Tensor& x, IntArrayRef dims, const char* op) {
  const std::int64_t nd = x.dim();
  std::vector<bool> mask(nd, dims.empty());
  for (std::int64_t d : dims) {
    const std::int64_t w = wrap_dim(d, nd, op);
    if (nd == 0) continue;  // a 0-d tensor accepts dim 0 / -1 and has nothing to reduce
    if (mask[w]) {
      throw ValueError(std::string(op) + ": dim " + std::to_string(w) + " appears multiple times in the list "
                       "of dims. Hint: list each dimension once.");
    }
    mask[w] = true;
  }
  return mask;
}

/// The normalised dims (0..ndim-1) a mask selects, in increasing order.
inline Shape mask_dims(const std::vector<bool>& mask) {
  Shape dims;
  for (std::size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) dims.push_back(static_cast<std::int64_t>(d));
  return dims;
}

/// Output shape of a reduction: reduced dims become 1 (keepdim) or disappear.
inline Shape reduced_shape(const Shape& shape, const std::vector<bool>& mask, bool keepdim) {
  Shape out;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!mask[d]) out.push_back(shape[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

/// How many input elements fall into each output element.
inline std::int64_t reduced_count(const Shape& shape, const std::vector<bool>& mask) {
  std::int64_t n = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (mask[d]) n *= shape[d];
  return n;
}

/// Sum of x[0..n) accumulated in Acc, pairwise: blocks of 128 are summed with 8 independent
/// accumulators (which the compiler turns into SIMD lanes), and blocks are combined as a binary
/// tree. The rounding error grows like O(log n) instead of O(n) — the same idea as PyTorch's
/// cascade sum, so results agree closely with torch.sum.
template <class In, class Acc> Acc pairwise_sum(const In* x, std::int64_t n) {
  constexpr std::int64_t kBlock = 128;
  if (n <= kBlock) {
    Acc lanes[8] = {};
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) lanes[k] += static_cast<Acc>(x[i + k]);
    Acc tail = 0;
    for (; i < n; ++i) tail += static_cast<Acc>(x[i]);
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7])) +
           tail;
  }
  // Split at a multiple of the block so that the leaves stay full.
  const std::int64_t half = ((n / 2 + kBlock - 1) / kBlock) * kBlock;
  return pairwise_sum<In, Acc>(x, half) + pairwise_sum<In, Acc>(x + half, n - half);
}

/// Walks input `x` together with accumulator `acc` (contiguous, keepdim shape). Calls
/// row(acc_ptr, x_ptr, acc_byte_stride, x_byte_stride, n) per innermost row; acc_byte_stride == 0
/// means the whole row falls into *acc_ptr. Dims are first reordered so the innermost row is the
/// one with the smallest input stride (cache-friendly for transposed inputs, as in TensorIterator).
template <class Row>
void reduce_loop(const Tensor& acc, const Tensor& x, Row&& row) {
  const std::int64_t nd = x.dim();
  const auto es = static_cast<std::int64_t>(x.element_size());
  DimVec acc_st = broadcast_byte_strides(acc, x.shape());
  std::vector<std::int64_t> order(nd);
  std::iota(order.begin(), order.end(), 0);
  // Outermost first: larger input strides outside; stride-0 (expanded) dims outermost of all.
  auto key = [&](std::int64_t d) {
    const std::int64_t s = x.stride(d);
    return s == 0 ? INT64_MAX : s;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return key(a) > key(b); });
  Shape shape(nd);
  std::array<std::vector<std::int64_t>, 2> st{std::vector<std::int64_t>(nd), std::vector<std::int64_t>(nd)};
  for (std::int64_t i = 0; i < nd; ++i) {
    shape[i] = x.size(order[i]);
    st[0][i] = acc_st[order[i]];
    st[1][i] = x.stride(order[i]) * es;
  }
  for_each_row<2>(shape, {static_cast<char*>(acc.raw_data_ptr()), static_cast<char*>(x.raw_data_ptr())}, st,
                  [&](std::array<char*, 2> p, const std::array<std::int64_t, 2>& s, std::int64_t n) {
                    row(p[0], p[1], s[0], s[1], n);
                  });
}

/// Calls f(lane_ptr, lane_byte_stride, lane_length, out_index) for every 1-D lane of `x` along
/// `dim`; out_index counts lanes in row-major order of the remaining dims (the order of a contiguous
/// output of shape x.shape() without `dim`). A 0-d tensor is one lane of length 1.
template <class F> void for_each_lane(const Tensor& x, std::int64_t dim, F&& f) {
  char* base = static_cast<char*>(x.raw_data_ptr());
  const auto es = static_cast<std::int64_t>(x.element_size());
  if (x.dim() == 0) {
    f(base, std::int64_t{0}, std::int64_t{1}, std::int64_t{0});
    return;
  }
  const std::int64_t lane_len = x.size(dim), lane_stride = x.stride(dim) * es;
  Shape outer;
  std::vector<std::int64_t> ostr;
  for (std::int64_t d = 0; d < x.dim(); ++d) {
    if (d == dim) continue;
    outer.push_back(x.size(d));
    ostr.push_back(x.stride(d) * es);
  }
  const std::int64_t count = numel_of(outer);
  std::vector<std::int64_t> idx(outer.size(), 0);
  char* p = base;
  for (std::int64_t k = 0; k < count; ++k) {
    f(p, lane_stride, lane_len, k);
    for (std::size_t d = outer.size(); d-- > 0;) {  // odometer, last dim fastest
      p += ostr[d];
      if (++idx[d] < outer[d]) break;
      p -= ostr[d] * outer[d];
      idx[d] = 0;
    }
  }
}

}  // namespace kindling::detail
