#pragma once
// Helpers shared by the tensor layer's .cpp files (not part of the public API).
#include "kindling/tensor/autograd_hooks.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::detail {

/// Switches grad mode off for a scope, inside an op that records itself once as a whole (chapter 2's
/// NoGradGuard is the public form).
class GradModeOff {
 public:
  GradModeOff() : previous_(grad_mode_enabled()) { set_grad_mode_enabled(false); }
  ~GradModeOff() { set_grad_mode_enabled(previous_); }
  GradModeOff(const GradModeOff&) = delete;
  GradModeOff& operator=(const GradModeOff&) = delete;

 private:
  bool previous_;
};

/// Storage for a contiguous `shape` of `dtype`, its size overflow-checked (checked.cpp); throws
/// ShapeError for an impossible size and OutOfMemoryError naming the shape when allocation fails.
std::shared_ptr<Storage> allocate_storage(const Shape& shape, DType dtype, Device device);
/// A fresh, contiguous, uninitialised tensor.
Tensor make_tensor(const Shape& shape, DType dtype, Device device = kCPU);
/// A view of `base`'s storage with new geometry. Not recorded by autograd (callers record).
Tensor make_view(const Tensor& base, Shape shape, Strides strides, std::int64_t offset);
/// Throws DeviceError unless every tensor is on the CPU (chapter 8 adds CUDA kernels).
void check_cpu(const Tensor& t, const char* op);
/// Throws DeviceError naming `op` and both devices when `a` and `b` live on different devices
/// (PyTorch's "Expected all tensors to be on the same device").
void check_same_device(const Tensor& a, const Tensor& b, const char* op);
/// Throws if `t` is undefined, naming `op`.
void check_defined(const Tensor& t, const char* op);
/// The dtype of a binary op between tensors, with PyTorch's rule that 0-d tensors only
/// change the *category* (bool → integer → floating), not the width, of dimensioned ones.
DType result_type(const Tensor& a, const Tensor& b);
/// The dtype of tensor ⊕ scalar ("wrapped number"): float scalar on an integer tensor → float32.
DType result_type(const Tensor& a, const Scalar& s);
/// The scalar as a 0-d tensor of `dtype`, converted without a range check (a number taking part in
/// arithmetic wraps like PyTorch's "wrapped number": uint8 + 300 adds 44).
Tensor scalar_to_tensor(const Scalar& s, DType dtype);
/// Throws ValueError naming `op` when `s` cannot be stored in `dtype` without overflow -- PyTorch's
/// checked conversion of a value to *store* (full, fill_, clamp's bounds, where's scalar, alpha).
void check_scalar_fits(const Scalar& s, DType dtype, const char* op);
/// check_scalar_fits, then scalar_to_tensor.
Tensor checked_scalar_to_tensor(const Scalar& s, DType dtype, const char* op);
/// Uninitialised tensor shaped like `like`, keeping its strides when they tile memory densely
/// (PyTorch's preserve_format, used by clone/to/empty_like), else row-major.
Tensor empty_preserving_strides(const Tensor& like, DType dtype);
/// c10's is_non_overlapping_and_dense: the elements tile one block of memory exactly, in some order
/// of the dimensions (a contiguous or transposed matrix does; a strided slice or an expand does not).
bool non_overlapping_and_dense(const Shape& shape, const Strides& strides);
/// True when two elements of `t` share one memory location (a stride-0 dimension of size > 1, as
/// expand makes): writing into it in place would be ambiguous, so in-place ops refuse. A tensor
/// with no elements has nothing to write and never overlaps (zeros({1, 0, 4}).expand({3, 0, 4})).
inline bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;
  for (std::int64_t d = 0; d < t.dim(); ++d)
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  return false;
}
/// The one rule for writing in place into a tensor whose elements share memory (PyTorch 1.13's):
/// an op that computes each element (add_, mul_, clamp_, copy_, index_put_, ...) calls this and
/// refuses, since which of the aliased results lands would be up to the loop's order; fill_ and
/// zero_ write one value everywhere, so the result is defined and they do not call it.
void check_no_internal_overlap(const Tensor& t, const char* op);
/// Elementwise conversion copy: dst (any strides) ← src broadcast to dst's shape.
void copy_into(const Tensor& dst, const Tensor& src);

}  // namespace kindling::detail
