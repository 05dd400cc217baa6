#pragma once
// The one place where a runtime DType becomes a C++ type. Every kernel is written once as a
// template and reaches its dtype through dispatch(), never through a per-dtype copy.
//
//   dispatch(x.dtype(), "exp", [&](auto tag) { using T = typename decltype(tag)::type; ... });
#include <cstdint>
#include <string>

#include "kindling/tensor/dtype.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::detail {

template <class T> struct TypeTag { using type = T; };

template <class F> decltype(auto) dispatch(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::Bool: return f(TypeTag<bool>{});
    case DType::UInt8: return f(TypeTag<std::uint8_t>{});
    case DType::Int64: return f(TypeTag<std::int64_t>{});
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
  }
  throw DTypeError(std::string(op) + ": unsupported dtype");
}

// Only float32/float64 (exp, log, softmax, ...): a clear error instead of silently truncating.
template <class F> decltype(auto) dispatch_floating(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::Float32: return f(TypeTag<float>{});
    case DType::Float64: return f(TypeTag<double>{});
    default:
      throw DTypeError(std::string(op) + ": expected a floating-point tensor (float32 or float64) but got " +
                       dtype_name(dtype) + ". Hint: convert first with .to(kd::kFloat32).");
  }
}

}  // namespace kindling::detail
