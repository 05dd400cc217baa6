// Indexing with tensors: index_select, gather, scatter, scatter_add and masked_fill.
//
// Basic indexing (indexing.cpp) makes views; these ops pick or place elements at positions held in
// another tensor, so they copy. Their shapes follow PyTorch:
//   index_select(x, dim, idx)   x: [4, 5], dim 1, idx: [3]    -> [4, 3]    out[i][j] = x[i][idx[j]]
//   gather(x, dim, idx)         x: [4, 5], dim 1, idx: [4, 2] -> [4, 2]    out[i][j] = x[i][idx[i][j]]
//   scatter_add(x, dim, idx, s) x: [4, 5], dim 1, idx, s: [4, 2] -> [4, 5] out[i][idx[i][j]] += s[i][j]
// gather and scatter_add are each other's backward, and index_select's backward is a scatter_add
// along one dimension (autograd/gather_scatter_backward.cpp).
#include <string>
#include <vector>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "loops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

std::string str(std::int64_t v) { return std::to_string(v); }

/// `empty_ok`: gather and scatter(_add) skip the check when the index has no elements (nothing is
/// read through it), as PyTorch does; index_select checks always, as PyTorch does.
void check_index_dtype(const Tensor& index, const char* op, bool empty_ok = false) {
  check_cpu(index, op);
  if (empty_ok && index.numel() == 0) return;
  if (index.dtype() != kInt64) {
    throw DTypeError(std::string(op) + ": expected an int64 index tensor, got " + dname(index.dtype()) + " (shape " +
                     shape_str(index.shape()) + "). Hint: positions are int64, e.g. index.to(kd::kInt64).");
  }
}

/// PyTorch's shape rule for gather/scatter: same rank, and index.size(d) <= t.size(d) for every d
/// (except `dim` when `skip_dim`).
void check_index_shape(const Tensor& index, const Tensor& t, std::int64_t dim, bool skip_dim, const char* what,
                       const char* op) {
  if (index.dim() != t.dim()) {
    throw ShapeError(std::string(op) + ": the index tensor must have as many dimensions as " + what + " (index " +
                     shape_str(index.shape()) + ", " + what + " " + shape_str(t.shape()) + "). Hint: unsqueeze the "
                     "index, e.g. labels.unsqueeze(1) to gather one value per row.");
  }
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    if (skip_dim && d == dim) continue;
    if (index.size(d) > t.size(d)) {
      throw ShapeError(std::string(op) + ": index " + shape_str(index.shape()) + " is larger than " + what + " " +
                       shape_str(t.shape()) + " in dimension " + str(d) + (skip_dim ? " (only dimension " + str(dim) +
                       ", the one indexed, may differ)" : "") + ".");
    }
  }
}

/// Element offset of `coord` in t (strides), with coordinate `dim` replaced by `at` when dim >= 0.
std::int64_t offset_of(const Tensor& t, const std::vector<std::int64_t>& coord, std::int64_t dim, std::int64_t at) {
  std::int64_t off = t.storage_offset();
  for (std::size_t d = 0; d < coord.size(); ++d)
    off += (static_cast<std::int64_t>(d) == dim ? at : coord[d]) * t.stride(static_cast<std::int64_t>(d));
  return off;
}

/// Calls f(coord, j) for every element of `index` (coord: its position, j: its value), after
/// checking 0 <= j < bound -- a bad position is an IndexError, never a read outside the tensor.
template <class F>
void for_each_index(const Tensor& index, std::int64_t dim, std::int64_t bound, const char* op, F&& f) {
  const std::int64_t n = index.numel();
  if (n == 0) return;
  const std::int64_t* base = static_cast<const std::int64_t*>(index.storage()->data());
  std::vector<std::int64_t> coord(static_cast<std::size_t>(index.dim()), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t j = base[offset_of(index, coord, -1, 0)];
    if (j < 0 || j >= bound) {
      throw IndexError(std::string(op) + ": index " + str(j) + " is out of bounds for dimension " + str(dim) +
                       " with size " + str(bound) + ". Hint: positions run from 0 to size - 1 (negative positions "
                       "are not allowed here).");
    }
    f(coord, j);
    for (std::int64_t d = index.dim() - 1; d >= 0; --d) {  // next coordinate, last dim fastest
      if (++coord[static_cast<std::size_t>(d)] < index.size(d)) break;
      coord[static_cast<std::size_t>(d)] = 0;
    }
  }
}

/// 0-d tensors take part as [1] (PyTorch allows gather/scatter on scalars with dim 0 or -1).
Tensor as_1d(const Tensor& t) { return t.dim() == 0 ? make_view(t, {1}, {1}, t.storage_offset()) : t; }

/// out (a fresh copy of self) with src scattered in; `accumulate` adds instead of overwriting.
Tensor scatter_impl(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src, bool accumulate,
                    const char* op) {
  check_cpu(self, op);
  check_cpu(src, op);
  check_index_dtype(index, op, true);
  if (src.dtype() != self.dtype()) {
    throw DTypeError(std::string(op) + ": self (" + dname(self.dtype()) + ") and src (" + dname(src.dtype()) +
                     ") must have the same dtype, as in PyTorch. Hint: convert src first, e.g. src.to(x.dtype()).");
  }
  const std::int64_t d = wrap_dim(dim, self.dim(), op);
  const Tensor s1 = as_1d(self), i1 = as_1d(index), src1 = as_1d(src);
  check_index_shape(i1, s1, d, true, "self", op);
  check_index_shape(i1, src1, d, false, "src", op);
  Tensor out = make_tensor(self.shape(), self.dtype());
  if (accumulate && is_reduced_floating_point(self.dtype())) {
    // float16/bfloat16 sums accumulate in float32 and round once per element (a position hit k times
    // would otherwise round k times): widen exactly, add, round back.
    copy_into(out, scatter_impl(cast(self, kFloat32), dim, index, cast(src, kFloat32), true, op));
    return out;
  }
  copy_into(out, self);
  if (index.numel() == 0) return out;  // nothing placed (and the index may have any dtype)
  const Tensor o1 = as_1d(out);
  // Overwriting moves elements (any dtype); adding is float32 at least (above).
  dispatch_all(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* po = static_cast<T*>(o1.storage()->data());
    const T* ps = static_cast<const T*>(src1.storage()->data());
    for_each_index(i1, d, s1.size(d), op, [&](const std::vector<std::int64_t>& c, std::int64_t j) {
      T& dst = po[offset_of(o1, c, d, j)];
      const T v = ps[offset_of(src1, c, -1, 0)];
      if constexpr (std::is_same_v<T, bool>) dst = accumulate ? (dst || v) : v;
      else dst = accumulate ? static_cast<T>(dst + v) : v;
    });
  });
  return out;
}

}  // namespace

Tensor index_select(const Tensor& self, std::int64_t dim, const Tensor& index) {
  check_cpu(self, "index_select");
  check_index_dtype(index, "index_select");
  if (index.dim() > 1) {
    throw ShapeError("index_select: the index must be a vector (1-D), got shape " + shape_str(index.shape()) +
                     ". Hint: flatten it first, or use gather for one position per element.");
  }
  const std::int64_t d = wrap_dim(dim, self.dim(), "index_select");
  const Tensor s1 = as_1d(self), i1 = as_1d(index);
  Shape shape = s1.shape();
  shape[static_cast<std::size_t>(d)] = i1.numel();
  if (self.dim() == 0) shape = {};  // a scalar stays a scalar, as in PyTorch
  Tensor out = make_tensor(shape, self.dtype());
  const Tensor o1 = as_1d(out);
  // out[..., k, ...] = self[..., index[k], ...]: one select + copy per position.
  const std::int64_t* ip = static_cast<const std::int64_t*>(i1.storage()->data());
  for (std::int64_t k = 0; k < i1.numel(); ++k) {
    const std::int64_t j = ip[i1.storage_offset() + k * i1.stride(0)];
    if (j < 0 || j >= s1.size(d)) {
      throw IndexError("index_select: index " + str(j) + " is out of range for dimension " + str(d) + " with size " +
                       str(s1.size(d)) + " (shape " + shape_str(self.shape()) + "). Hint: positions run from 0 "
                       "to size - 1.");
    }
    Shape sub = s1.shape();
    Strides sst = s1.strides(), ost = o1.strides();
    sub.erase(sub.begin() + d);
    sst.erase(sst.begin() + d);
    ost.erase(ost.begin() + d);
    copy_into(make_view(o1, sub, ost, o1.storage_offset() + k * o1.stride(d)),
              make_view(s1, sub, sst, s1.storage_offset() + j * s1.stride(d)));
  }
  return record<"index_select">(out, self, d, NonDifferentiable{index});
}

Tensor gather(const Tensor& self, std::int64_t dim, const Tensor& index) {
  check_cpu(self, "gather");
  check_index_dtype(index, "gather", true);
  const std::int64_t d = wrap_dim(dim, self.dim(), "gather");
  const Tensor s1 = as_1d(self), i1 = as_1d(index);
  check_index_shape(i1, s1, d, true, "self", "gather");
  Tensor out = make_tensor(index.shape(), self.dtype());
  const Tensor o1 = as_1d(out);
  // gather only moves elements: every dtype, float16/bfloat16 included (sort, topk, take_along_dim).
  if (index.numel() > 0) dispatch_all(self.dtype(), "gather", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* po = static_cast<T*>(o1.storage()->data());
    const T* ps = static_cast<const T*>(s1.storage()->data());
    for_each_index(i1, d, s1.size(d), "gather", [&](const std::vector<std::int64_t>& c, std::int64_t j) {
      po[offset_of(o1, c, -1, 0)] = ps[offset_of(s1, c, d, j)];
    });
  });
  return record<"gather">(out, self, d, NonDifferentiable{index});
}

Tensor scatter(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = scatter_impl(self, dim, index, src, false, "scatter");
  return record<"scatter">(out, self, wrap_dim(dim, self.dim(), "scatter"), NonDifferentiable{index}, src);
}

Tensor scatter(const Tensor& self, std::int64_t dim, const Tensor& index, Scalar value) {
  check_defined(self, "scatter");
  const Tensor v = checked_scalar_to_tensor(value, self.dtype(), "scatter");
  Tensor out = scatter_impl(self, dim, index, make_view(v, index.shape(), Strides(index.dim(), 0), 0), false,
                            "scatter");
  return record<"scatter_value">(out, self, wrap_dim(dim, self.dim(), "scatter"), NonDifferentiable{index}, value);
}

Tensor scatter_add(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = scatter_impl(self, dim, index, src, true, "scatter_add");
  return record<"scatter_add">(out, self, wrap_dim(dim, self.dim(), "scatter_add"), NonDifferentiable{index},
                               src);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, Scalar value) {
  check_cpu(self, "masked_fill");
  check_cpu(mask, "masked_fill");
  // PyTorch skips the check when there is nothing to fill.
  if (mask.dtype() != kBool && (mask.numel() > 0 || self.numel() > 0)) {
    throw DTypeError("masked_fill: the mask must be a bool tensor, got " + dname(mask.dtype()) + " (shape " +
                     shape_str(mask.shape()) + "). Hint: build it with a comparison, e.g. x.masked_fill(x < 0, 0).");
  }
  const Tensor v = checked_scalar_to_tensor(value, self.dtype(), "masked_fill");
  Tensor out = make_tensor(broadcast_shapes(self.shape(), mask.shape(), "masked_fill"), self.dtype());
  // Only picks one of two values: every dtype, float16/bfloat16 included.
  if (out.numel() > 0) dispatch_all(self.dtype(), "masked_fill", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T fill = *v.data_ptr<T>();
    binary_loop<bool, T, T>(out, mask, self, [fill](bool m, T x) { return m ? fill : x; });
  });
  return record<"masked_fill">(out, self, NonDifferentiable{mask}, value);
}

Tensor Tensor::index_select(std::int64_t dim, const Tensor& index) const {
  return kindling::index_select(*this, dim, index);
}
Tensor Tensor::gather(std::int64_t dim, const Tensor& index) const { return kindling::gather(*this, dim, index); }
Tensor Tensor::scatter(std::int64_t dim, const Tensor& index, const Tensor& src) const {
  return kindling::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(std::int64_t dim, const Tensor& index, Scalar value) const {
  return kindling::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter_add(std::int64_t dim, const Tensor& index, const Tensor& src) const {
  return kindling::scatter_add(*this, dim, index, src);
}
Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const { return kindling::masked_fill(*this, mask, value); }

}  // namespace kindling
