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
  }
  return "?";
}

bool is_floating_point(DType dtype) { return dtype == DType::Float32 || dtype == DType::Float64; }

// The enum is declared in promotion order, so "the larger one wins" is PyTorch's rule for two
// tensors (bool < uint8 < int64 < float32 < float64).
DType promote_types(DType a, DType b) { return std::max(a, b); }

}  // namespace kindling
