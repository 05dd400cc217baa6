// Copies and conversions: contiguous, clone, detach, to(dtype/device), and the in-place writers
// copy_, fill_, zero_. The strided copy loop itself is detail::copy_into (tensor.cpp).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "internal.hpp"
#include "device_copy.hpp"
#include "device_ops.hpp"

namespace kindling {
namespace detail {

// c10's is_non_overlapping_and_dense: the elements tile one block of memory exactly, in some
// order of the dimensions (a transposed matrix does; a strided slice or an expanded tensor does not).
bool non_overlapping_and_dense(const Shape& shape, const Strides& strides) {
  if (numel_of(shape) == 0) return true;
  if (shape.size() == 1) return shape[0] < 2 || strides[0] == 1;
  std::vector<std::size_t> perm(shape.size());
  std::iota(perm.begin(), perm.end(), 0);
  // Innermost (smallest stride) first; size-0/1 dims last, they do not matter.
  std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    if (shape[a] < 2) return false;
    if (shape[b] < 2) return true;
    return strides[a] < strides[b];
  });
  std::int64_t required = 1;
  for (std::size_t d : perm) {
    if (shape[d] < 2) return true;
    if (strides[d] != required) return false;
    required *= shape[d];
  }
  return true;
}

namespace {

// ATen's infer_dense_strides: compact strides that keep the order of the input's dimensions in
// memory. Insertion sort where stride-0 dims compare as "ambiguous" and so stay where they are.
Strides infer_dense_strides(const Shape& shape, const Strides& strides) {
  const std::size_t n = shape.size();
  if (n == 0) return {};
  if (n == 1) return {1};
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = n - 1 - i;  // n-1, ..., 0: innermost first
  auto should_swap = [&](std::size_t d0, std::size_t d1) {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] < strides[d1]) return -1;
    if (strides[d0] > strides[d1]) return 1;
    return shape[d0] > shape[d1] ? 1 : 0;
  };
  for (std::size_t i = 1; i < n; ++i) {
    std::size_t d1 = i;
    for (std::size_t d0 = i; d0-- > 0;) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  Strides out(n);
  std::int64_t step = 1;
  for (std::size_t d : perm) {
    out[d] = step;
    if (shape[d] > 1) step *= shape[d];
  }
  return out;
}

}  // namespace

// PyTorch's "preserve_format" (clone, to, empty_like): a tensor whose elements tile memory densely
// (e.g. a transposed matrix) keeps its strides exactly; any other keeps its dimensions' memory
// order with compact strides (an expanded or strided-slice tensor becomes row-major-like).
Tensor empty_preserving_strides(const Tensor& like, DType dtype) {
  Tensor out = make_tensor(like.shape(), dtype, like.device());
  out.impl()->strides = non_overlapping_and_dense(like.shape(), like.strides())
                            ? like.strides()
                            : infer_dense_strides(like.shape(), like.strides());
  return out;
}

}  // namespace detail

namespace detail {
void check_no_internal_overlap(const Tensor& t, const char* op) {
  if (!has_internal_overlap(t)) return;
  for (std::int64_t i = 0; i < t.dim(); ++i) {
    if (t.strides()[i] == 0 && t.shape()[i] > 1) {
      throw ValueError(std::string(op) + ": unsupported operation: more than one element of the written-to "
                       "tensor refers to a single memory location (shape " + shape_str(t.shape()) + ", stride 0 in "
                       "dimension " + std::to_string(i) + ": it was made by expand). Hint: call .clone() on it "
                       "first; only fill_ and zero_, which write one value everywhere, may write into it.");
    }
  }
}
}  // namespace detail
namespace {

bool same_geometry(const Tensor& a, const Tensor& b) {
  return a.storage_offset() == b.storage_offset() && a.shape() == b.shape() && a.strides() == b.strides();
}
}  // namespace

Tensor Tensor::contiguous() const {
  detail::check_defined(*this, "contiguous");
  if (is_contiguous()) return *this;
  Tensor out = detail::make_tensor(shape(), dtype(), device());
  detail::check_cpu(*this, "contiguous");
  detail::copy_into(out, *this);
  return detail::record<"clone">(out, *this);
}

Tensor Tensor::clone() const {
  detail::check_cpu(*this, "clone");
  Tensor out = detail::empty_preserving_strides(*this, dtype());
  detail::copy_into(out, *this);
  return detail::record<"clone">(out, *this);
}

Tensor Tensor::detach() const {
  detail::check_defined(*this, "detach");
  // Same storage (and so the same version counter), but a fresh TensorImpl without autograd meta.
  return detail::make_view(*this, shape(), strides(), storage_offset());
}

Tensor Tensor::to(DType target) const {
  detail::check_defined(*this, "to");
  if (dtype() == target) return *this;
  Tensor out;
  // On a device: float32 <-> float16 / bfloat16 have cast kernels (autocast's casts, device_ops.hpp).
  if (const auto* dev = detail::device_ops(*this);
      dev && dev->to_dtype && detail::device_float(dtype()) && detail::device_float(target)) {
    out = dev->to_dtype(*this, target);
  } else {
    detail::check_cpu(*this, "to");
    out = detail::empty_preserving_strides(*this, target);
    detail::copy_into(out, *this);
  }
  // Only a floating result can carry a gradient (an int64 copy of x is not differentiable).
  if (!kindling::is_floating_point(target)) return out;
  return detail::record<"to_dtype">(out, *this);
}

Tensor Tensor::to(Device target) const {
  detail::check_defined(*this, "to");
  if (device() == target) return *this;
  // A device layer (chapter 8) registers how to reach its memory; the CPU needs no hook.
  const auto& src_hooks = detail::device_copy(device().type);
  const auto& dst_hooks = detail::device_copy(target.type);
  if ((!device().is_cpu() && !src_hooks.to_host) || (!target.is_cpu() && !dst_hooks.to_device)) {
    throw DeviceError("to: cannot copy a tensor from " + device().str() + " to " + target.str() +
                      ": no " + (target.is_cpu() ? device() : target).str() + " device is set up. "
                      "Hint: link kindling_cuda (chapter 8) and check kd::cuda::is_available() "
                      "first; run `kindling-doctor` to see why CUDA is unavailable.");
  }
  const Tensor on_host = device().is_cpu() ? *this : src_hooks.to_host(*this);
  Tensor out = target.is_cpu() ? on_host : dst_hooks.to_device(on_host, target);
  // A fresh tensor in any case (to_host may return its staging buffer's view): recorded, so that
  // the gradient travels back to this tensor's device.
  if (!kindling::is_floating_point(dtype())) return out;
  return detail::record<"to_device">(out, *this);
}

Tensor Tensor::to(const TensorOptions& options) const {
  // options.requires_grad is not applied: to() converts, it does not change autograd flags.
  return to(options.dtype).to(options.device);
}

namespace {
void check_copy_shapes(const Tensor& dst, const Tensor& src) {
  const Shape b = broadcast_shapes(dst.shape(), src.shape(), "copy_");
  if (b != dst.shape()) {
    throw ShapeError("copy_: the source of shape " + shape_str(src.shape()) +
                     " cannot be broadcast to the destination's shape " + shape_str(dst.shape()) +
                     ". Hint: the source may have fewer or size-1 dimensions, never more or larger ones.");
  }
}

// copy_ with a device on either side: through the host. The source comes to the host (to_host),
// is broadcast and converted there into a staging tensor laid out like the destination, which goes
// up in one copy (upload_into). Correct for every pair; the speed of a real device-to-device copy
// is chapter 8's business, not this one's.
void copy_across_devices(Tensor& dst, const Tensor& src) {
  const Tensor host_src = src.device().is_cpu() ? src : src.cpu();
  if (dst.device().is_cpu()) {
    dst.copy_(host_src);
    return;
  }
  const auto& hooks = detail::device_copy(dst.device().type);
  if (!hooks.upload_into) {
    throw DeviceError("copy_: cannot write into a tensor on " + dst.device().str() + ": no " +
                      dst.device().str() + " device is set up. Hint: link kindling_cuda (chapter 8) and "
                      "check kd::cuda::is_available().");
  }
  if (!dst.is_contiguous()) {
    throw DeviceError("copy_: the destination on " + dst.device().str() + " (shape " + shape_str(dst.shape()) +
                      ") is not contiguous, and only a contiguous device tensor can be written from the host. "
                      "Hint: copy into a contiguous tensor (t = t.contiguous()) first.");
  }
  Tensor staged = detail::make_tensor(dst.shape(), dst.dtype());
  staged.copy_(host_src);  // broadcast and dtype conversion on the host
  hooks.upload_into(dst, staged);
}
}  // namespace

namespace {
// PyTorch records dst.copy_(src) (CopyBackwards) when src requires grad; Kindling records no
// in-place op, so it refuses instead of silently cutting src's gradient off (add_ and the other
// in-place ops refuse the same way).
void check_source_not_recorded(const Tensor& src, const char* op) {
  if (detail::needs_grad(src)) {
    throw AutogradError(std::string(op) + ": the source requires grad, but in-place writes are not recorded by "
                        "Kindling's autograd: its gradient would be lost. Hint: use an out-of-place form "
                        "(y = src.clone(), src.to(dtype), kd::where(mask, src, y), kd::cat), or write under "
                        "kd::NoGradGuard when no gradient should flow.");
  }
}
}  // namespace

Tensor& Tensor::copy_(const Tensor& src) {
  detail::check_defined(*this, "copy_");
  detail::check_defined(src, "copy_");
  check_source_not_recorded(src, "copy_");
  if (!device().is_cpu() || !src.device().is_cpu()) {
    detail::check_inplace(*this, "copy_");
    check_copy_shapes(*this, src);
    copy_across_devices(*this, src);
    storage()->bump_version();
    return *this;
  }
  detail::check_inplace(*this, "copy_");
  check_copy_shapes(*this, src);
  detail::check_no_internal_overlap(*this, "copy_");
  if (shares_storage(src)) {
    // Writing a tensor into an overlapping view of itself (x.copy_(x.t())) would read values it has
    // already overwritten: go through a temporary.
    if (!same_geometry(*this, src) || src.dtype() != dtype()) {
      Tensor tmp = detail::make_tensor(src.shape(), src.dtype());
      detail::copy_into(tmp, src);
      detail::copy_into(*this, tmp);
    }
  } else {
    detail::copy_into(*this, src);
  }
  storage()->bump_version();
  return *this;
}

Tensor& Tensor::fill_(Scalar value) {
  // On a device: its fill kernel for a contiguous float32 tensor (device_ops.hpp).
  if (const auto* dev = detail::device_ops(*this); dev && dev->fill && dtype() == kFloat32 && is_contiguous()) {
    detail::check_inplace(*this, "fill_");
    dev->fill(*this, value.to_double());
    storage()->bump_version();
    return *this;
  }
  detail::check_cpu(*this, "fill_");
  detail::check_inplace(*this, "fill_");
  detail::copy_into(*this, detail::checked_scalar_to_tensor(value, dtype(), "fill_"));
  storage()->bump_version();
  return *this;
}

Tensor& Tensor::zero_() {
  if (detail::device_ops(*this)) return fill_(0.0);  // on a device: its fill kernel, or fill_'s DeviceError
  detail::check_cpu(*this, "zero_");
  detail::check_inplace(*this, "zero_");
  // Zero is all bits 0 in every dtype: a dense block (contiguous or a transpose) is one memset
  // (zero_grad does this to every .grad); any other view goes through the strided copy.
  if (!detail::non_overlapping_and_dense(shape(), strides())) detail::copy_into(*this, detail::scalar_to_tensor(0, dtype()));
  else if (nbytes() > 0) std::memset(raw_data_ptr(), 0, nbytes());
  storage()->bump_version();
  return *this;
}

}  // namespace kindling
