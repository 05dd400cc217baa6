// Views: new TensorImpls over the *same* Storage. Nothing here copies data (except reshape(),
// which falls back to a copy when no view can describe the result). Each view only rewrites the
// geometry — shape, strides, offset — and records itself for autograd under its op key.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "kindling/tensor/checked.hpp"
#include "internal.hpp"
#include "pieces.hpp"

namespace kindling {
namespace {

using detail::make_view;
using detail::record;

std::string str(std::int64_t v) { return std::to_string(v); }

// Resolves one -1 in `shape` so that numel matches (PyTorch's infer_size).
Shape infer_size(const Shape& shape, std::int64_t numel, const char* op) {
  Shape out = shape;
  std::optional<std::size_t> infer;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer) {
        throw ShapeError(std::string(op) + ": only one dimension can be inferred (-1), but shape " +
                         shape_str(shape) + " has several. Hint: spell out all sizes but one.");
      }
      infer = i;
    } else if (shape[i] < 0) {
      throw ShapeError(std::string(op) + ": invalid size " + str(shape[i]) + " in shape " + shape_str(shape) +
                       ". Sizes must be >= 0, or -1 for the one size to infer.");
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      throw ShapeError(std::string(op) + ": shape " + shape_str(shape) + " has more elements than an int64 can count "
                       "(a tensor of " + str(numel) + " elements cannot take it).");
    }
  }
  if (infer) {
    if (known == 0) {
      throw ShapeError(std::string(op) + ": cannot reshape a tensor of " + str(numel) + " elements into shape " +
                       shape_str(shape) + ": the -1 could be any value because another size is 0. "
                       "Hint: give every size explicitly.");
    }
    if (numel % known == 0) {
      out[*infer] = numel / known;
      return out;
    }
  } else if (known == numel) {
    return out;
  }
  throw ShapeError(std::string(op) + ": shape " + shape_str(shape) + " is invalid for a tensor of " + str(numel) +
                   " elements. Hint: the sizes must multiply to " + str(numel) + " (one of them may be -1).");
}

// PyTorch's computeStride (aten/src/ATen/TensorUtils.cpp): the strides that let `newshape` view
// memory laid out as (oldshape, oldstride), or nullopt when no view can. The idea: split the old
// dimensions into "chunks" that are contiguous among themselves; a view may regroup the sizes
// inside a chunk freely but may not merge across chunks.
std::optional<Strides> compute_stride(const Shape& oldshape, const Strides& oldstride, const Shape& newshape) {
  if (oldshape.empty()) return Strides(newshape.size(), 1);
  const std::int64_t numel = numel_of(oldshape);
  if (numel == 0 && oldshape == newshape) return oldstride;
  Strides newstride(newshape.size());
  if (numel == 0) {  // nothing to address: any row-major strides will do
    for (std::int64_t d = static_cast<std::int64_t>(newshape.size()) - 1; d >= 0; --d) {
      if (d == static_cast<std::int64_t>(newshape.size()) - 1) {
        newstride[d] = 1;
      } else if (__builtin_mul_overflow(std::max<std::int64_t>(newshape[d + 1], 1), newstride[d + 1],
                                        &newstride[d])) {
        // saturate (no wrap): make_view then refuses a shape this large, naming it
        newstride[d] = std::numeric_limits<std::int64_t>::max();
      }
    }
    return newstride;
  }
  std::int64_t view_d = static_cast<std::int64_t>(newshape.size()) - 1;
  std::int64_t chunk_base_stride = oldstride.back();
  std::int64_t tensor_numel = 1, view_numel = 1;
  for (std::int64_t tensor_d = static_cast<std::int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    // End of a chunk: the next dim (outwards) is not laid out right after this group.
    if (tensor_d == 0 ||
        (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

// A view with the same geometry (what squeeze(dim) of a non-1 dim and t() of a vector return).
Tensor alias(const Tensor& x) { return make_view(x, x.shape(), x.strides(), x.storage_offset()); }

}  // namespace

Tensor Tensor::view(const Shape& shape) const {
  detail::check_defined(*this, "view");
  const Shape target = infer_size(shape, numel(), "view");
  auto strides = compute_stride(this->shape(), this->strides(), target);
  if (!strides) {
    throw ShapeError("view: cannot view a tensor of shape " + shape_str(this->shape()) + " and strides " +
                     shape_str(this->strides()) + " as shape " + shape_str(target) +
                     ": the new shape would merge dimensions that are not laid out one after the other in "
                     "memory (e.g. after transpose/permute). Hint: use .reshape() or call .contiguous() first.");
  }
  return record<"view">(make_view(*this, target, *strides, storage_offset()), *this, IntArrayRef(target));
}

Tensor Tensor::reshape(const Shape& shape) const {
  detail::check_defined(*this, "reshape");
  const Shape target = infer_size(shape, numel(), "reshape");
  if (auto strides = compute_stride(this->shape(), this->strides(), target)) {
    return record<"reshape_alias">(make_view(*this, target, *strides, storage_offset()), *this, IntArrayRef(target));
  }
  // No view can describe it: copy into row-major order, then view that (PyTorch does the same, and
  // calls the view of its own fresh copy an "unsafe view": UnsafeViewBackward0 over CloneBackward0).
  const Tensor copy = contiguous();
  return record<"unsafe_view">(make_view(copy, target, contiguous_strides(target), copy.storage_offset()), copy,
                               IntArrayRef(target));
}

// permute, select and expand compute their geometry in chapter 1's exercise pieces (pieces.hpp: ex2,
// ex3); the library records the view for autograd with the normalised arguments.
Tensor Tensor::permute(IntArrayRef dims) const {
  detail::check_defined(*this, "permute");
  Tensor out = detail::permute_view(detail::piece_input(*this), dims);
  Shape wrapped(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) wrapped[i] = wrap_dim(dims[i], dim(), "permute");
  return record<"permute">(std::move(out), *this, IntArrayRef(wrapped));
}

Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const {
  detail::check_defined(*this, "transpose");
  const std::int64_t d0 = wrap_dim(dim0, dim(), "transpose"), d1 = wrap_dim(dim1, dim(), "transpose");
  Shape s = shape();
  Strides st = strides();
  if (dim() > 0) {
    std::swap(s[d0], s[d1]);
    std::swap(st[d0], st[d1]);
  }
  return record<"transpose">(make_view(*this, s, st, storage_offset()), *this, d0, d1);
}

Tensor Tensor::t() const {
  detail::check_defined(*this, "t");
  if (dim() > 2) {
    throw ShapeError("t: expects a tensor with <= 2 dimensions, but got shape " + shape_str(shape()) +
                     ". Hint: use transpose(dim0, dim1) or permute() for higher-dimensional tensors.");
  }
  Tensor out = dim() == 2 ? make_view(*this, {shape()[1], shape()[0]}, {strides()[1], strides()[0]},
                                      storage_offset())
                          : alias(*this);
  return record<"t">(out, *this);
}

Tensor Tensor::expand(const Shape& sizes) const {
  detail::check_defined(*this, "expand");
  Tensor out = detail::expand_view(detail::piece_input(*this), sizes);
  // A view holds no new memory, but every loop over it counts its elements: [2^40, 2^40] must not
  // wrap to a small count (the sum of such a view once returned 0 without looking at anything).
  checked::numel(out.shape(), "expand");
  const Shape out_shape = out.shape();
  return record<"expand">(std::move(out), *this, IntArrayRef(out_shape));
}

Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.shape()); }

Tensor Tensor::squeeze() const {
  detail::check_defined(*this, "squeeze");
  Shape s;
  Strides st;
  for (std::int64_t i = 0; i < dim(); ++i) {
    if (shape()[i] != 1) {
      s.push_back(shape()[i]);
      st.push_back(strides()[i]);
    }
  }
  return record<"squeeze">(make_view(*this, s, st, storage_offset()), *this);
}

Tensor Tensor::squeeze(std::int64_t d) const {
  detail::check_defined(*this, "squeeze");
  const std::int64_t w = wrap_dim(d, dim(), "squeeze");
  Shape s = shape();
  Strides st = strides();
  // Squeezing a dimension whose size is not 1 is a no-op (still a view), like PyTorch.
  if (dim() > 0 && s[w] == 1) {
    s.erase(s.begin() + w);
    st.erase(st.begin() + w);
  }
  return record<"squeeze_dim">(make_view(*this, s, st, storage_offset()), *this, w);
}

Tensor Tensor::unsqueeze(std::int64_t d) const {
  detail::check_defined(*this, "unsqueeze");
  const std::int64_t w = wrap_dim(d, dim() + 1, "unsqueeze");
  Shape s = shape();
  Strides st = strides();
  // The new size-1 dim's stride is what a contiguous layout would give it (any stride works).
  const std::int64_t stride = w >= dim() ? 1 : s[w] * st[w];
  s.insert(s.begin() + w, 1);
  st.insert(st.begin() + w, stride);
  return record<"unsqueeze">(make_view(*this, s, st, storage_offset()), *this, w);
}

Tensor Tensor::flatten(std::int64_t start_dim, std::int64_t end_dim) const {
  detail::check_defined(*this, "flatten");
  if (dim() == 0) {
    // A 0-d tensor flattens to [1]; its dims still range over [-1, 0], as in PyTorch.
    wrap_dim(start_dim, 0, "flatten");
    wrap_dim(end_dim, 0, "flatten");
    return reshape({1});
  }
  const std::int64_t s = wrap_dim(start_dim, dim(), "flatten"), e = wrap_dim(end_dim, dim(), "flatten");
  if (s > e) {
    throw IndexError("flatten: start_dim (" + str(start_dim) + ") must not come after end_dim (" + str(end_dim) +
                     ") for a tensor of shape " + shape_str(shape()) + ".");
  }
  if (s == e) return *this;
  Shape target(shape().begin(), shape().begin() + s);
  std::int64_t merged = 1;
  for (std::int64_t i = s; i <= e; ++i) merged *= shape()[i];
  target.push_back(merged);
  target.insert(target.end(), shape().begin() + e + 1, shape().end());
  return reshape(target);
}

Tensor Tensor::narrow(std::int64_t d, std::int64_t start, std::int64_t length) const {
  detail::check_defined(*this, "narrow");
  if (dim() == 0) throw IndexError("narrow: cannot be applied to a 0-d tensor. Hint: unsqueeze(0) first.");
  const std::int64_t w = wrap_dim(d, dim(), "narrow");
  const std::int64_t size = shape()[w];
  if (start < 0 && start >= -size) start += size;  // Python-style negative start
  if (start < 0 || start > size) {
    throw IndexError("narrow: start " + str(start) + " is out of range for dimension " + str(w) + " of size " +
                     str(size) + " (shape " + shape_str(shape()) + ").");
  }
  if (length < 0 || start + length > size) {
    throw IndexError("narrow: start (" + str(start) + ") + length (" + str(length) + ") exceeds dimension " +
                     str(w) + " of size " + str(size) + " (shape " + shape_str(shape()) +
                     "). Hint: length must be in [0, size - start].");
  }
  return slice(w, start, start + length, 1);
}

Tensor Tensor::slice(std::int64_t d, std::int64_t start, std::int64_t stop, std::int64_t step) const {
  detail::check_defined(*this, "slice");
  if (dim() == 0) throw IndexError("slice: cannot be applied to a 0-d tensor. Hint: unsqueeze(0) first.");
  if (step <= 0) {
    throw ValueError("slice: step must be positive, got " + str(step) +
                     ". Hint: PyTorch has no negative steps; to reverse a dimension, index with a reversed "
                     "arange or flip the data.");
  }
  const std::int64_t w = wrap_dim(d, dim(), "slice");
  const std::int64_t size = shape()[w];
  // Python's clamping: negative bounds count from the end, out-of-range bounds are clipped.
  if (start < 0) start = start < -size ? 0 : start + size;
  if (stop < 0) stop = stop < -size ? 0 : stop + size;
  start = std::min(start, size);
  stop = std::clamp(stop, start, size);
  Shape s = shape();
  Strides st = strides();
  s[w] = (stop - start + step - 1) / step;
  const std::int64_t offset = storage_offset() + start * st[w];
  st[w] *= step;
  return record<"slice">(make_view(*this, s, st, offset), *this, w, start, stop, step);
}

Tensor Tensor::select(std::int64_t d, std::int64_t index) const {
  detail::check_defined(*this, "select");
  Tensor out = detail::select_view(detail::piece_input(*this), d, index);
  const std::int64_t w = wrap_dim(d, dim(), "select");
  return record<"select">(std::move(out), *this, w, index < 0 ? index + size(w) : index);
}

Tensor Tensor::operator[](std::int64_t index) const { return select(0, index); }

}  // namespace kindling
