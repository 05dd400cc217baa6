#pragma once
// The one place where a runtime DType becomes a C++ type. Every kernel is written once as a
// template and reaches its dtype through dispatch(), never through a per-dtype copy.
//
//   dispatch(x.dtype(), "exp", [&](auto tag) { using T = typename decltype(tag)::type; ... });
#include <cstdint>
#include <string>
#include <utility>

#include "kindling/tensor/dtype.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::detail {

template <class T> struct TypeTag { using type = T; };

/// Thrown by dispatch() for a 16-bit float reaching a kernel that has no 16-bit version.
[[noreturn]] inline void refuse_reduced_float(DType dtype, const char* op) {
  throw DTypeError(std::string(op) + ": this kernel has no " + dtype_name(dtype) + " version. Hint: "
                   "convert first with .to(kd::kFloat32), or compute inside an autocast region.");
}

/// The compute dtypes (bool, uint8, int64, float32, float64). float16/bfloat16 tensors are
/// computed in float32 by the ops themselves (as PyTorch's CPU kernels do) and never reach here.
template <class F> decltype(auto) dispatch(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::Bool: return f(TypeTag<bool>{});
    case DType::UInt8: return f(TypeTag<std::uint8_t>{});
    case DType::Int64: return f(TypeTag<std::int64_t>{});
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Float16:
    case DType::BFloat16: refuse_reduced_float(dtype, op);
  }
  throw DTypeError(std::string(op) + ": unsupported dtype");
}

/// Every dtype, the 16-bit floats included: for code that only moves or converts elements
/// (copies, item(), filling). Half and BFloat16 convert to and from float implicitly.
template <class F> decltype(auto) dispatch_all(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::Float16: return f(TypeTag<Half>{});
    case DType::BFloat16: return f(TypeTag<BFloat16>{});
    default: return dispatch(dtype, op, std::forward<F>(f));
  }
}

// Only float32/float64 (exp, log, softmax, ...): a clear error instead of silently truncating.
template <class F> decltype(auto) dispatch_floating(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    case DType::Float16:
    case DType::BFloat16: refuse_reduced_float(dtype, op);
    default:
      throw DTypeError(std::string(op) + ": expected a floating-point tensor (float32 or float64) but got " +
                       dtype_name(dtype) + ". Hint: convert first with .to(kd::kFloat32).");
  }
}

}  // namespace kindling::detail
