// ch01.ex3 — broadcasting: the shape two tensors combine to, and expand's stride-0 views.
//
// Every elementwise op (a + b, a * b, where, maximum, ...) asks broadcast_shapes for its output shape;
// Tensor::expand / expand_as (and autograd's backward of sum and mean) call expand_view. Declared in
// kindling/tensor/shape.hpp and lib/src/tensor/pieces.hpp.
#include "tensor/pieces.hpp"

#include <algorithm>
#include <string>

namespace kindling {

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  // BEGIN SOLUTION ex3: align the shapes on the right; sizes must be equal or one of them 1
  // [8, 1, 6, 1] with [7, 1, 5] -> [8, 7, 6, 5]: a missing leading dimension counts as size 1.
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (sa != sb && sa != 1 && sb != 1) {
      throw ShapeError(std::string(op) + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                       " cannot be broadcast: dimension " + std::to_string(i) + " (from the left, after "
                       "aligning the shapes on the right) has sizes " + std::to_string(sa) + " and " +
                       std::to_string(sb) + ". Sizes must be equal or one of them must be 1; "
                       "use unsqueeze()/view() to add a size-1 dimension where you meant one.");
    }
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
  // END SOLUTION
}

namespace detail {

Tensor expand_view(const Tensor& x, const Shape& sizes) {
  // BEGIN SOLUTION ex3: align on the right; stretched and new dimensions get stride 0
  auto str = [](std::int64_t v) { return std::to_string(v); };
  const std::int64_t ndim = static_cast<std::int64_t>(sizes.size()), tdim = x.dim();
  if (ndim < tdim) {
    throw ShapeError("expand: the target shape " + shape_str(sizes) + " has fewer dimensions than the tensor's " +
                     shape_str(x.shape()) + ". Hint: expand can only add leading dimensions, never remove them.");
  }
  Shape out_shape(ndim);
  Strides out_strides(ndim);
  // From the right, like broadcasting (PyTorch's inferExpandGeometry).
  for (std::int64_t i = ndim - 1; i >= 0; --i) {
    const std::int64_t d = tdim - 1 - (ndim - 1 - i);  // x's dimension aligned with i (< 0: a new one)
    std::int64_t size = d >= 0 ? x.shape()[d] : 1;
    std::int64_t stride = d >= 0 ? x.strides()[d] : (i + 1 < ndim ? out_shape[i + 1] * out_strides[i + 1] : 1);
    std::int64_t target = sizes[i];
    if (target == -1) {
      if (d < 0) {
        throw ShapeError("expand: -1 is not allowed for the new leading dimension " + str(i) + " in " +
                         shape_str(sizes) + " (tensor shape " + shape_str(x.shape()) +
                         "). Hint: -1 means 'keep this size', which only exists for the tensor's own dims.");
      }
      target = size;
    } else if (target < 0) {
      throw ShapeError("expand: invalid size " + str(target) + " in " + shape_str(sizes) +
                       ". Sizes must be >= 0 or -1 (keep).");
    }
    if (size != target) {
      if (size != 1) {
        throw ShapeError("expand: the expanded size (" + str(target) + ") must match the existing size (" +
                         str(size) + ") at non-singleton dimension " + str(i) + ". Target shape " +
                         shape_str(sizes) + ", tensor shape " + shape_str(x.shape()) +
                         ". Hint: only size-1 dimensions can be expanded; use repeat-like copies (cat) otherwise.");
      }
      size = target;
      stride = 0;  // every index along this dimension reads the same element
    }
    out_shape[i] = size;
    out_strides[i] = stride;
  }
  return make_view(x, out_shape, out_strides, x.storage_offset());
  // END SOLUTION
}

}  // namespace detail
}  // namespace kindling
