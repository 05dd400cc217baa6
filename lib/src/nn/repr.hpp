#pragma once
// Internal: Python-style text for the extra_repr() of layers, so print(model) matches PyTorch byte
// for byte ("eps=1e-05", "momentum=0.1", "bias=True", "(10,)").
#include <cstdint>
#include <string>
#include <vector>

namespace kindling::nn::detail {

/// Python's repr(float): shortest round-trip digits, "1e-05", "0.1", "1.0", "inf", "nan".
std::string py_float(double v);
/// "True" / "False".
inline std::string py_bool(bool b) { return b ? "True" : "False"; }
/// Python's repr of a tuple of ints: "(10,)", "(2, 3)".
std::string py_tuple(const std::vector<std::int64_t>& v);

}  // namespace kindling::nn::detail
