#pragma once
/// @file
/// NumPy's .npy files: what np.save writes, np.load reads. Loading checks the magic, the header,
/// the dtype, and that the file holds exactly the bytes the shape needs.
#include <optional>
#include <string>

#include "kindling/tensor/tensor.hpp"

namespace kindling {

/// Writes `t` as a .npy file (version 1.0, little-endian, C order), atomically: the file appears
/// complete or not at all.
void save_npy(const Tensor& t, const std::string& path);
/// Reads a .npy file written by NumPy or save_npy: bool, uint8, int64, float16, float32, float64,
/// little- or big-endian, C or Fortran order. With `dtype` the result is converted to it, which also
/// loads the integer widths Kindling has no dtype for (int8/16/32, uint16/32: widened exactly), e.g.
/// load_npy("labels.npy", kd::kInt64). Throws IOError naming the file and the problem for
/// truncated or foreign files.
Tensor load_npy(const std::string& path, std::optional<DType> dtype = std::nullopt);

}  // namespace kindling
