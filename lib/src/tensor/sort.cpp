// Ordering along a dimension: sort, argsort and topk.
//
//   x: [2, 5], dim -1   sort -> values [2, 5], indices [2, 5]   values[i][j] = x[i][indices[i][j]]
//                       topk(3) -> values [2, 3], indices [2, 3] (the 3 largest of each row)
//
// Only the positions are computed here (a stable sort of each lane, NaN ordered above every number,
// as in PyTorch). The values are then x.gather(dim, indices), so autograd needs no new Function: the
// gradient of a sorted value goes back to the element it came from (GatherBackward0, where PyTorch's
// graph reads SortBackward0/TopkBackward0 -- the same numbers).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/tensor/creation.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

/// The positions that sort each lane of x along `dim` (int64, x's shape). NaN is the largest value.
Tensor sorted_positions(const Tensor& x, std::int64_t dim, bool descending, const char* op) {
  check_cpu(x, op);
  check_defined(x, op);
  const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(x.dim(), 1), op);  // a 0-d x takes 0 or -1
  if (x.dim() == 0) return zeros({}, {.dtype = kInt64});
  // Lanes contiguous and last: [..., n]. 16-bit floats are ordered through their (exact) float32 values.
  const Tensor lanes = contiguous_copy(cast(x, compute_dtype_of(x.dtype())).transpose(d, -1));
  const std::int64_t n = lanes.size(-1);
  const std::int64_t count = n == 0 ? 0 : lanes.numel() / n;
  Tensor pos = make_tensor(lanes.shape(), kInt64);
  auto* pp = static_cast<std::int64_t*>(pos.storage()->data());
  dispatch(lanes.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* px = static_cast<const T*>(lanes.storage()->data()) + lanes.storage_offset();
    for (std::int64_t l = 0; l < count; ++l) {
      const T* v = px + l * n;
      std::int64_t* p = pp + l * n;
      std::iota(p, p + n, std::int64_t{0});
      auto less = [v](std::int64_t a, std::int64_t b) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(v[a])) return false;     // NaN is never below anything
          if (std::isnan(v[b])) return true;      // every number is below NaN
        }
        return v[a] < v[b];
      };
      if (descending) std::stable_sort(p, p + n, [&](std::int64_t a, std::int64_t b) { return less(b, a); });
      else std::stable_sort(p, p + n, less);
    }
  });
  return pos.transpose(d, -1);  // back to x's layout (a view; gather reads it through its strides)
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& x, std::int64_t dim, bool descending) {
  Tensor indices;
  {
    GradModeOff off;  // positions are not differentiable
    indices = contiguous_copy(sorted_positions(x, dim, descending, "sort"));
  }
  return {x.dim() == 0 ? x.clone() : x.gather(dim, indices), indices};
}

Tensor argsort(const Tensor& x, std::int64_t dim, bool descending) {
  return contiguous_copy(sorted_positions(x, dim, descending, "argsort"));
}

std::pair<Tensor, Tensor> topk(const Tensor& x, std::int64_t k, std::int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // the k values always come back in order (PyTorch leaves the order open when false)
  check_defined(x, "topk");
  const std::int64_t size = x.dim() == 0 ? 1 : x.size(wrap_dim(dim, std::max<std::int64_t>(x.dim(), 1), "topk"));
  if (k < 0 || k > size) {
    throw IndexError("topk: selected index k = " + std::to_string(k) + " is out of range for dimension " +
                     std::to_string(dim) + " of size " + std::to_string(size) + " (input shape " +
                     shape_str(x.shape()) + "). Hint: k must be between 0 and the size of that dimension.");
  }
  Tensor indices;
  {
    GradModeOff off;
    const Tensor pos = sorted_positions(x, dim, largest, "topk");
    indices = contiguous_copy(x.dim() == 0 ? pos : pos.narrow(dim, 0, k));
  }
  return {x.dim() == 0 ? x.clone() : x.gather(dim, indices), indices};
}

std::pair<Tensor, Tensor> Tensor::sort(std::int64_t dim, bool descending) const {
  return kindling::sort(*this, dim, descending);
}
Tensor Tensor::argsort(std::int64_t dim, bool descending) const { return kindling::argsort(*this, dim, descending); }
std::pair<Tensor, Tensor> Tensor::topk(std::int64_t k, std::int64_t dim, bool largest, bool sorted) const {
  return kindling::topk(*this, k, dim, largest, sorted);
}

}  // namespace kindling
