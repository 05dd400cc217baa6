// Indexing, LibTorch-style: x.index({Slice(1, None), 0, None, Ellipsis}) is Python's x[1:, 0, None, ...].
//
// Basic indexing: every entry becomes one view op — select (an integer drops a dim), slice, unsqueeze
// (None adds a dim) — so the result shares x's storage, exactly like Python.
//
// Advanced indexing: a tensor entry — a bool mask (x[x > 0]) or int64 positions (x[idx]) — picks
// elements, so the result is a copy. PyTorch's rules, which we follow:
//   * a mask of k dims stands for k position tensors, its nonzero() columns; a 0-d bool adds a dim;
//   * the position tensors broadcast together to one shape B;
//   * if they index adjacent dims, B replaces those dims in place (x: [2, 3, 4], x[:, idx] with idx
//     [5] -> [2, 5, 4]); if other entries separate them, B goes first (x[idx, :, idx] -> [5, 3]).
// The copy is made of ops autograd knows: permute the indexed dims to the front, merge them into one,
// compute each element's position in the merged dim (i0 * n1 + i1 ...) and index_select it.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <variant>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"

namespace kindling {

using namespace indexing;

indexing::TensorArg::TensorArg(const Tensor& t) : tensor(std::make_shared<const Tensor>(t)) {}

namespace {

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

const Tensor& tensor_of(const TensorArg& a, const char* op) {
  const Tensor& t = *a.tensor;
  detail::check_defined(t, op);
  if (!is_mask(t) && t.dtype() != kInt64) {
    throw IndexError(std::string(op) + ": tensors used as indices must be long (int64), byte (uint8) or bool "
                     "tensors, got " + detail::dname(t.dtype()) + " of shape " + shape_str(t.shape()) +
                     ". Hint: positions are int64, e.g. idx.to(kd::kInt64); masks come from comparisons.");
  }
  return t;
}

// How many of the tensor's existing dimensions an entry consumes (None and ... consume none; a mask
// as many as it has).
std::int64_t consumes_dims(const TensorIndex& idx) {
  if (std::holds_alternative<std::int64_t>(idx) || std::holds_alternative<Slice>(idx)) return 1;
  if (const auto* a = std::get_if<TensorArg>(&idx)) {
    const Tensor& t = *a->tensor;
    return t.defined() && is_mask(t) ? t.dim() : 1;
  }
  return 0;
}

bool has_tensor(const std::vector<TensorIndex>& indices) {
  return std::any_of(indices.begin(), indices.end(),
                     [](const TensorIndex& i) { return std::holds_alternative<TensorArg>(i); });
}

/// The positions of the true elements of a mask as one int64 tensor per dim (its nonzero() columns).
std::vector<Tensor> mask_positions(const Tensor& mask) {
  const Tensor nz = nonzero(mask);  // [count, k]
  std::vector<Tensor> cols;
  for (std::int64_t j = 0; j < mask.dim(); ++j) cols.push_back(nz.select(1, j));
  return cols;
}

/// The basic entries applied as views; each tensor entry is left in place (like a full slice) and
/// turned into position tensors, with the dim of `view` each indexes.
struct Prepared {
  Tensor view;
  std::vector<std::int64_t> dims;   // dims of `view` indexed by a position tensor, increasing
  std::vector<Tensor> positions;    // int64, one per entry of dims (not yet broadcast)
};

Prepared prepare(const Tensor& self, const std::vector<TensorIndex>& indices, const char* op) {
  detail::check_defined(self, op);
  std::int64_t consumed = 0, ellipses = 0;
  for (const auto& idx : indices) {
    consumed += consumes_dims(idx);
    ellipses += std::holds_alternative<EllipsisType>(idx);
  }
  if (ellipses > 1) {
    throw IndexError(std::string(op) + ": an index can only have a single ellipsis (...), got " +
                     std::to_string(ellipses) + ".");
  }
  if (consumed > self.dim()) {
    throw IndexError(std::string(op) + ": too many indices for a tensor of dimension " + std::to_string(self.dim()) +
                     " (shape " + shape_str(self.shape()) + "): " + std::to_string(consumed) +
                     " integers/slices given. Hint: None and Ellipsis do not count, every integer or Slice "
                     "consumes one dimension (a mask as many as it has).");
  }
  Prepared p{self, {}, {}};
  Tensor& out = p.view;
  std::int64_t d = 0;  // the dimension of `out` the next entry applies to
  for (const auto& idx : indices) {
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::int64_t>) {
            out = out.select(d, v);  // the dimension disappears: d stays
          } else if constexpr (std::is_same_v<V, Slice>) {
            const std::int64_t start = v.start.value.value_or(0);
            const std::int64_t stop = v.stop.value.value_or(std::numeric_limits<std::int64_t>::max());
            out = out.slice(d, start, stop, v.step);
            ++d;
          } else if constexpr (std::is_same_v<V, NoneType>) {
            out = out.unsqueeze(d);
            ++d;
          } else if constexpr (std::is_same_v<V, EllipsisType>) {  // skip the dims no other entry claims
            d += self.dim() - consumed;
          } else {  // a tensor
            const Tensor& t = tensor_of(v, op);
            if (!is_mask(t)) {
              p.dims.push_back(d++);
              p.positions.push_back(t);
            } else if (t.dim() == 0) {  // x[True] adds a dim of size 1, x[False] one of size 0
              out = out.unsqueeze(d);
              p.dims.push_back(d++);
              p.positions.push_back(t.to(kBool).item<bool>() ? zeros({1}, {.dtype = kInt64})
                                                             : zeros({0}, {.dtype = kInt64}));
            } else {
              for (std::int64_t j = 0; j < t.dim(); ++j) {
                if (t.size(j) != out.size(d + j)) {
                  Shape covered(out.shape().begin() + d, out.shape().begin() + d + t.dim());
                  throw IndexError(std::string(op) + ": the shape of the mask " + shape_str(t.shape()) +
                                   " at index " + std::to_string(j) + " does not match the shape of the indexed "
                                   "tensor " + shape_str(out.shape()) + " at index " + std::to_string(d + j) +
                                   " (the mask covers dims of sizes " + shape_str(covered) + "). Hint: a mask "
                                   "has the shape of the dims it selects from, e.g. x[x > 0].");
                }
              }
              for (Tensor& col : mask_positions(t)) {
                p.dims.push_back(d++);
                p.positions.push_back(col);
              }
            }
          }
        },
        idx);
  }
  return p;
}

/// Where the advanced result goes: everything needed to read or write x[indices].
struct Plan {
  Tensor moved;                 // the view with the indexed dims first: [n0, n1, ..., rest...]
  Shape index_shape;            // B, the broadcast shape of the position tensors
  std::vector<Tensor> wrapped;  // each position tensor broadcast to B, negatives wrapped, contiguous
  Shape rest;                   // sizes of the dims not indexed, in order
  std::int64_t insert_at = 0;   // where B goes in the result (0 unless the indexed dims are adjacent)
};

Plan plan(const Prepared& p, const char* op) {
  Plan pl;
  const Tensor& v = p.view;
  Shape perm(p.dims.begin(), p.dims.end());
  for (std::int64_t d = 0; d < v.dim(); ++d) {
    if (std::find(p.dims.begin(), p.dims.end(), d) == p.dims.end()) {
      perm.push_back(d);
      pl.rest.push_back(v.size(d));
    }
  }
  pl.moved = v.permute(perm);
  bool adjacent = true;
  for (std::size_t j = 1; j < p.dims.size(); ++j) adjacent = adjacent && p.dims[j] == p.dims[j - 1] + 1;
  pl.insert_at = adjacent ? p.dims.front() : 0;
  for (const Tensor& t : p.positions) pl.index_shape = broadcast_shapes(pl.index_shape, t.shape(), op);
  detail::GradModeOff off;
  // Positions that broadcast to no element at all (x[[10], []]) are never used, so they are not
  // checked either (as in PyTorch): the result, or the write, is empty.
  const bool reads_any = numel_of(pl.index_shape) > 0;
  for (std::size_t j = 0; j < p.positions.size(); ++j) {
    const std::int64_t n = v.size(p.dims[j]);
    const Tensor& t = p.positions[j];
    if (reads_any && t.numel() > 0) {
      const std::int64_t lo = t.min().item<std::int64_t>(), hi = t.max().item<std::int64_t>();
      const std::int64_t bad = lo < -n ? lo : (hi >= n ? hi : 0);
      if (lo < -n || hi >= n) {
        throw IndexError(std::string(op) + ": index " + std::to_string(bad) + " is out of bounds for dimension " +
                         std::to_string(p.dims[j]) + " with size " + std::to_string(n) + ". Hint: positions "
                         "run from -size to size - 1.");
      }
    }
    pl.wrapped.push_back(detail::contiguous_copy(where(t < 0, t + n, t).expand(pl.index_shape)));
  }
  return pl;
}

/// x[idx] = value drops the value's leading size-1 dims beyond the target's rank before broadcasting
/// (PyTorch's setitem: a [1, 1, 2, 5] value fits x[[0, 2]] of shape [2, 5]); other dims must broadcast.
Tensor drop_leading_ones(const Tensor& value, std::int64_t rank) {
  std::int64_t drop = 0;
  while (value.dim() - drop > rank && value.size(drop) == 1) ++drop;
  if (drop == 0) return value;
  return detail::make_view(value, Shape(value.shape().begin() + drop, value.shape().end()),
                           Strides(value.strides().begin() + drop, value.strides().end()), value.storage_offset());
}

/// B's dims moved from the front of [B..., rest...] to position `insert_at`.
Shape placement(std::int64_t nb, std::int64_t nr, std::int64_t at) {
  Shape perm;
  for (std::int64_t i = 0; i < at; ++i) perm.push_back(nb + i);
  for (std::int64_t i = 0; i < nb; ++i) perm.push_back(i);
  for (std::int64_t i = at; i < nr; ++i) perm.push_back(nb + i);
  return perm;
}

Tensor advanced_index(const Prepared& p, const char* op) {
  const Plan pl = plan(p, op);
  const auto k = static_cast<std::int64_t>(p.dims.size());
  // Merge the k indexed dims into one of n0 * n1 * ... elements: position i0 * (n1 * n2 ...) + i1 * ...
  std::int64_t merged = 1;
  for (std::int64_t j = 0; j < k; ++j) merged *= pl.moved.size(j);
  Tensor linear;
  {
    detail::GradModeOff off;
    linear = zeros(pl.index_shape, {.dtype = kInt64});
    std::int64_t mult = 1;
    for (std::int64_t j = k; j-- > 0;) {
      linear = linear + pl.wrapped[static_cast<std::size_t>(j)] * mult;
      mult *= pl.moved.size(j);
    }
  }
  Shape flat_shape{merged};
  flat_shape.insert(flat_shape.end(), pl.rest.begin(), pl.rest.end());
  Shape out_shape = pl.index_shape;
  out_shape.insert(out_shape.end(), pl.rest.begin(), pl.rest.end());
  Tensor out = pl.moved.reshape(flat_shape).index_select(0, linear.reshape({-1})).reshape(out_shape);
  const auto nb = static_cast<std::int64_t>(pl.index_shape.size()), nr = static_cast<std::int64_t>(pl.rest.size());
  if (pl.insert_at > 0) out = out.permute(placement(nb, nr, pl.insert_at));
  return out;
}

void advanced_put(Tensor& self, const Prepared& p, const Tensor& value, const char* op) {
  detail::check_cpu(value, op);
  detail::check_inplace(self, op);
  detail::check_no_internal_overlap(self, op);
  const Plan pl = plan(p, op);
  const auto nb = static_cast<std::int64_t>(pl.index_shape.size()), nr = static_cast<std::int64_t>(pl.rest.size());
  Shape result_shape = pl.index_shape;
  result_shape.insert(result_shape.end(), pl.rest.begin(), pl.rest.end());
  const Shape perm = placement(nb, nr, pl.insert_at);
  Shape placed;
  for (auto d : perm) placed.push_back(result_shape[static_cast<std::size_t>(d)]);
  const Tensor fitted = drop_leading_ones(value, static_cast<std::int64_t>(placed.size()));
  if (fitted.dim() > static_cast<std::int64_t>(placed.size()) || broadcast_shapes(placed, fitted.shape(), op) != placed) {
    throw ShapeError(std::string(op) + ": shape mismatch: value tensor of shape " + shape_str(value.shape()) +
                     " cannot be broadcast to indexing result of shape " + shape_str(placed) + ".");
  }
  // The values in [B..., rest...] order, contiguous, in self's dtype: row b goes to position b of B.
  Shape inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  Tensor vals;
  {
    detail::GradModeOff off;
    vals = detail::contiguous_copy(detail::cast(fitted, self.dtype()).expand(placed).permute(inverse));
  }
  const std::int64_t count = numel_of(pl.index_shape), row = numel_of(pl.rest);
  const auto k = static_cast<std::size_t>(p.dims.size());
  Strides rest_strides, row_strides = contiguous_strides(pl.rest);
  for (std::int64_t d = static_cast<std::int64_t>(k); d < pl.moved.dim(); ++d) rest_strides.push_back(pl.moved.stride(d));
  std::vector<const std::int64_t*> pos(k);
  for (std::size_t j = 0; j < k; ++j) pos[j] = pl.wrapped[j].data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t offset = pl.moved.storage_offset();
    for (std::size_t j = 0; j < k; ++j) offset += pos[j][i] * pl.moved.stride(static_cast<std::int64_t>(j));
    const Tensor dst = detail::make_view(pl.moved, pl.rest, rest_strides, offset);
    const Tensor src = detail::make_view(vals, pl.rest, row_strides, vals.storage_offset() + i * row);
    detail::copy_into(dst, src);
  }
  self.storage()->bump_version();
}

// Writes through a tensor index take values of x's own dtype, as in PyTorch ("Index put requires
// the source and destination dtypes match"), with PyTorch's one exception: a single mask and a
// one-element value, which PyTorch runs as masked_fill_ (the value converted like a number). Writes
// through integers and slices alone are copy_ into a view, which converts.
void check_put_dtype(const Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value) {
  detail::check_defined(value, "index_put_");
  if (value.dtype() == self.dtype()) return;
  int tensors = 0, masks = 0;
  for (const TensorIndex& i : indices) {
    if (const auto* t = std::get_if<TensorArg>(&i)) {
      ++tensors;
      masks += is_mask(*t->tensor);
    }
  }
  if (tensors == 1 && masks == 1 && value.numel() == 1) return;
  throw DTypeError(std::string("index_put_: Index put requires the source and destination dtypes match, got ") +
                   dtype_name(self.dtype()) + " for the destination and " + dtype_name(value.dtype()) +
                   " for the source. Hint: convert the value with .to(x.dtype()) (a number converts by itself).");
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  const Prepared p = prepare(*this, indices, "index");
  if (!p.dims.empty()) return advanced_index(p, "index");
  // x[...] (or no index at all) changed nothing, but Python still returns a new view of x (an alias,
  // with its own autograd identity: not a leaf, its own retain_grad) rather than x itself.
  if (p.view.is_same(*this)) {
    return detail::record<"alias">(detail::make_view(*this, shape(), strides(), storage_offset()), *this);
  }
  return p.view;
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) {
  if (value.impl() && value.impl()->requires_grad() && detail::grad_mode_enabled()) {
    throw AutogradError("index_put_: the value requires grad, but writes through an index are not recorded by "
                        "Kindling's autograd: its gradient would be lost. Hint: build the result out of place, "
                        "e.g. kd::where(mask, value, x), or kd::cat of the pieces.");
  }
  if (!has_tensor(indices)) {
    Tensor target = index(indices);  // a view of self: copy_ writes through it
    target.copy_(drop_leading_ones(value, target.dim()));
    return *this;
  }
  check_put_dtype(*this, indices, value);
  advanced_put(*this, prepare(*this, indices, "index_put_"), value, "index_put_");
  return *this;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) {
  return index_put_(std::vector<TensorIndex>(indices), value);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) {
  const std::vector<TensorIndex> list(indices);
  if (!has_tensor(list)) {
    index(list).fill_(value);
    return *this;
  }
  detail::check_defined(*this, "index_put_");
  return index_put_(list, detail::checked_scalar_to_tensor(value, dtype(), "index_put_"));
}

Tensor nonzero(const Tensor& x) {
  detail::check_cpu(x, "nonzero");
  detail::check_defined(x, "nonzero");
  // x's elements in row-major order; each non-zero one contributes its coordinates as a row.
  const Tensor c = detail::contiguous_copy(x);
  const std::int64_t n = c.numel(), nd = c.dim();
  std::vector<std::int64_t> rows;
  std::int64_t count = 0;
  detail::dispatch_all(c.dtype(), "nonzero", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(c.raw_data_ptr());
    std::vector<std::int64_t> coord(static_cast<std::size_t>(nd), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      if (static_cast<double>(p[i]) != 0.0) {  // NaN counts as non-zero, as in PyTorch
        rows.insert(rows.end(), coord.begin(), coord.end());
        ++count;
      }
      for (std::int64_t d = nd; d-- > 0;) {  // odometer, last dim fastest
        if (++coord[static_cast<std::size_t>(d)] < c.size(d)) break;
        coord[static_cast<std::size_t>(d)] = 0;
      }
    }
  });
  Tensor out = detail::make_tensor({count, nd}, kInt64);
  std::copy(rows.begin(), rows.end(), out.data_ptr<std::int64_t>());
  return out;
}

}  // namespace kindling
