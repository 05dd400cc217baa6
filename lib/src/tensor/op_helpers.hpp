#pragma once
// Small helpers shared by the math ops (binary_ops.cpp, unary_ops.cpp, compare_ops.cpp, reductions.cpp,
// softmax.cpp, matmul.cpp, join.cpp). Not part of the public API.
#include <string>

#include "internal.hpp"

namespace kindling::detail {

/// `t` itself when it already has `dtype`, otherwise a converted contiguous copy. Never recorded by
/// autograd: ops call it on their inputs, then record the op on the original tensors.
inline Tensor cast(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = make_tensor(t.shape(), dtype, t.device());
  copy_into(out, t);
  return out;
}

/// The dtype a kernel computes `dtype` in: float32 for float16/bfloat16 (each result is rounded
/// back once, as in PyTorch's CPU kernels), the dtype itself otherwise.
inline DType compute_dtype_of(DType dtype) { return is_reduced_floating_point(dtype) ? kFloat32 : dtype; }

/// Runs `kernel(out)`; when `out` is float16/bfloat16 the kernel writes a float32 tensor instead,
/// which is then rounded into `out` once. Kernels cast their inputs to the dtype of the tensor they
/// are given, so a 16-bit input is widened exactly and every element is rounded a single time.
template <class Kernel> void via_float32(const Tensor& out, Kernel&& kernel) {
  if (!is_reduced_floating_point(out.dtype())) {
    kernel(out);
    return;
  }
  Tensor wide = make_tensor(out.shape(), kFloat32, out.device());
  kernel(wide);
  copy_into(out, wide);
}

/// `t` itself when contiguous, otherwise a row-major copy (not recorded).
inline Tensor contiguous_copy(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = make_tensor(t.shape(), t.dtype(), t.device());
  copy_into(out, t);
  return out;
}

/// PyTorch's three categories: bool < integer < floating.
inline int dtype_category(DType d) { return d == kBool ? 0 : (is_floating_point(d) ? 2 : 1); }

/// Like result_type(tensor, scalar) for a tensor whose dtype is `dtype` — lets an op with several
/// scalar arguments (clamp(x, min, max)) fold them in one after another.
inline DType promote_with_scalar(DType dtype, const Scalar& s) {
  const int sc = s.is_floating_point() ? 2 : (s.is_integral() ? 1 : 0);
  if (sc <= dtype_category(dtype)) return dtype;
  return sc == 2 ? kFloat32 : kInt64;
}

/// PyTorch's canCast for writing a result into an existing tensor (in-place ops): a floating result
/// may not go into an integer tensor, and a non-bool result may not go into a bool tensor.
inline bool can_cast(DType from, DType to) {
  return dtype_category(from) <= dtype_category(to);
}

/// PyTorch's spelling of dtypes in cast errors ("Float", "Long"), so messages match what users
/// have seen from PyTorch.
inline const char* torch_type_name(DType d) {
  switch (d) {
    case DType::Bool: return "Bool";
    case DType::UInt8: return "Byte";
    case DType::Int64: return "Long";
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::Float16: return "Half";
    case DType::BFloat16: return "BFloat16";
  }
  return "?";
}

/// "float32" etc. as a std::string, to build messages with +.
inline std::string dname(DType d) { return dtype_name(d); }

}  // namespace kindling::detail
