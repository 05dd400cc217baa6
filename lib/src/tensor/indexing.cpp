// Basic indexing, LibTorch-style: x.index({Slice(1, None), 0, None, Ellipsis}) is Python's
// x[1:, 0, None, ...]. Every entry becomes one view op — select (an integer drops a dim), slice,
// unsqueeze (None adds a dim) — so the result shares x's storage, exactly like Python.
#include <limits>
#include <string>
#include <type_traits>
#include <variant>

#include "internal.hpp"

namespace kindling {

using namespace indexing;

namespace {

// How many of the tensor's existing dimensions an entry consumes (None and ... consume none).
bool consumes_dim(const TensorIndex& idx) {
  return std::holds_alternative<std::int64_t>(idx) || std::holds_alternative<Slice>(idx);
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  detail::check_defined(*this, "index");
  std::int64_t consumed = 0, ellipses = 0;
  for (const auto& idx : indices) {
    consumed += consumes_dim(idx);
    ellipses += std::holds_alternative<EllipsisType>(idx);
  }
  if (ellipses > 1) {
    throw IndexError("index: an index can only have a single ellipsis (...), got " + std::to_string(ellipses) + ".");
  }
  if (consumed > dim()) {
    throw IndexError("index: too many indices for a tensor of dimension " + std::to_string(dim()) + " (shape " +
                     shape_str(shape()) + "): " + std::to_string(consumed) +
                     " integers/slices given. Hint: None and Ellipsis do not count, every integer or Slice "
                     "consumes one dimension.");
  }
  Tensor out = *this;
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
          } else {  // Ellipsis: skip the dimensions no other entry claims
            d += dim() - consumed;
          }
        },
        idx);
  }
  // x[...] (or no index at all) changed nothing, but Python still returns a new view of x (an alias,
  // with its own autograd identity: not a leaf, its own retain_grad) rather than x itself.
  if (out.is_same(*this)) {
    return detail::record<"alias">(detail::make_view(*this, shape(), strides(), storage_offset()), *this);
  }
  return out;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) {
  index(indices).copy_(value);
  return *this;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) {
  index(indices).fill_(value);
  return *this;
}

}  // namespace kindling
