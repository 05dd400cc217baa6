// cat and stack: joining tensors.
//
// Both allocate the result once and copy each input into its slot — a *view* of the result narrowed
// along the join dim — with the same strided copy that contiguous() uses. Inputs of different dtypes
// are promoted like a binary op (torch.cat([int_tensor, float_tensor]) is float32).
#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

void check_list(const std::vector<Tensor>& tensors, const char* op) {
  if (tensors.empty()) {
    throw ValueError(std::string(op) + ": expected a non-empty list of tensors. Hint: check that the list "
                     "you build is filled before calling " + op + ".");
  }
  for (const auto& t : tensors) check_cpu(t, op);
}

DType common_dtype(const std::vector<Tensor>& tensors) {
  DType dt = tensors[0].dtype();
  for (const auto& t : tensors) dt = promote_types(dt, t.dtype());
  return dt;
}

/// The part of `out` that lies at [start, start + length) along `dim` (a view, no copy).
Tensor slot(const Tensor& out, std::int64_t dim, std::int64_t start, std::int64_t length) {
  Shape shape = out.shape();
  shape[dim] = length;
  return make_view(out, shape, out.strides(), out.storage_offset() + start * out.stride(dim));
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim) {
  check_list(tensors, "cat");
  // PyTorch's legacy rule: 1-D empty tensors (shape [0]) are skipped, whatever the other shapes.
  const Tensor* ref = nullptr;
  std::size_t ref_pos = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].dim() == 0) {
      throw ShapeError("cat: zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be "
                       "concatenated. Hint: use stack() to join scalars into a 1-D tensor, or unsqueeze(0).");
    }
    if (!ref && !(tensors[i].dim() == 1 && tensors[i].size(0) == 0)) {
      ref = &tensors[i];
      ref_pos = i;
    }
  }
  if (!ref) ref = &tensors[0];  // every input is an empty 1-D tensor
  const std::int64_t d = wrap_dim(dim, ref->dim(), "cat");
  Shape out_shape = ref->shape();
  out_shape[d] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() == 1 && t.size(0) == 0 && ref->dim() != 1) continue;
    if (t.dim() != ref->dim()) {
      throw ShapeError("cat: tensors must have the same number of dimensions, but tensor " + std::to_string(ref_pos) +
                       " has shape " + shape_str(ref->shape()) + " and tensor " + std::to_string(i) + " has shape " +
                       shape_str(t.shape()) + ". Hint: unsqueeze() or view() the odd one first.");
    }
    for (std::int64_t k = 0; k < t.dim(); ++k) {
      if (k != d && t.size(k) != ref->size(k)) {
        throw ShapeError("cat: sizes of tensors must match except in dimension " + std::to_string(d) +
                         ": tensor " + std::to_string(ref_pos) + " has shape " + shape_str(ref->shape()) +
                         " but tensor " + std::to_string(i) + " has shape " + shape_str(t.shape()) +
                         " (dimension " + std::to_string(k) + " differs: " + std::to_string(ref->size(k)) +
                         " vs " + std::to_string(t.size(k)) + "). Hint: did you mean to cat along dim " +
                         std::to_string(k) + "?");
      }
    }
    out_shape[d] += t.size(d);
  }
  Tensor out = make_tensor(out_shape, common_dtype(tensors));
  std::int64_t start = 0;
  for (const auto& t : tensors) {
    if (t.dim() == 1 && t.size(0) == 0 && ref->dim() != 1) continue;
    copy_into(slot(out, d, start, t.size(d)), t);
    start += t.size(d);
  }
  return record<"cat">(out, tensors, d);
}

Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim) {
  check_list(tensors, "stack");
  const Shape& shape = tensors[0].shape();
  for (std::size_t i = 1; i < tensors.size(); ++i) {
    if (tensors[i].shape() != shape) {
      throw ShapeError("stack: expects each tensor to be of equal size, but got " + shape_str(shape) +
                       " at entry 0 and " + shape_str(tensors[i].shape()) + " at entry " + std::to_string(i) +
                       ". Hint: cat() joins tensors that differ along the join dim.");
    }
  }
  // The new dim may go anywhere from 0 to ndim (inclusive), so wrap against ndim + 1.
  const std::int64_t d = wrap_dim(dim, static_cast<std::int64_t>(shape.size()) + 1, "stack");
  Shape out_shape = shape;
  out_shape.insert(out_shape.begin() + d, static_cast<std::int64_t>(tensors.size()));
  Tensor out = make_tensor(out_shape, common_dtype(tensors));
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    // out.select(d, i): drop dim d from the geometry, start at element i along it.
    Shape s = out.shape();
    Strides st = out.strides();
    const std::int64_t off = static_cast<std::int64_t>(i) * st[d];
    s.erase(s.begin() + d);
    st.erase(st.begin() + d);
    copy_into(make_view(out, s, st, off), tensors[i]);
  }
  return record<"stack">(out, tensors, d);
}

}  // namespace kindling
