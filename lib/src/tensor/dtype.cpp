#include "kindling/tensor/dtype.hpp"

#include <algorithm>

namespace kindling {

std::size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::Bool: return 1;
    case DType::UInt8: return 1;
    case DType::Int64: return 8;
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::Float16: return 2;
    case DType::BFloat16: return 2;
  }
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "uint8";
    case DType::Int64: return "int64";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
  }
  return "?";
}

bool is_floating_point(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 || is_reduced_floating_point(dtype);
}

bool is_reduced_floating_point(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

namespace {
// Where each dtype sits in PyTorch's promotion lattice: the larger rank wins. float16 and bfloat16
// share a rank; when they meet, neither can hold the other, and PyTorch picks float32.
int promotion_rank(DType d) {
  switch (d) {
    case DType::Bool: return 0;
    case DType::UInt8: return 1;
    case DType::Int64: return 2;
    case DType::Float16:
    case DType::BFloat16: return 3;
    case DType::Float32: return 4;
    case DType::Float64: return 5;
  }
  return 0;
}
}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (is_reduced_floating_point(a) && is_reduced_floating_point(b)) return DType::Float32;
  return promotion_rank(a) >= promotion_rank(b) ? a : b;
}

}  // namespace kindling
