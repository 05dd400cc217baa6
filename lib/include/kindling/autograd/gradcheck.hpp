#pragma once
/// @file
/// gradcheck: is a backward formula right? Compares the analytical gradient (what backward
/// computes) with the numerical one (central differences, (f(x+eps) - f(x-eps)) / 2eps) for every
/// element of every input, in float64. torch.autograd.gradcheck in C++.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::autograd {

/// Settings, written with designated initialisers: `gradcheck(f, {x}, {.atol = 1e-4})`.
struct GradcheckOptions {
  double eps = 1e-6;    ///< step of the central difference
  double atol = 1e-5;   ///< |analytical - numerical| <= atol + rtol * |numerical|
  double rtol = 1e-3;
  bool raise_exception = false;  ///< throw an AutogradError with the report instead of returning ok=false
};

/// What gradcheck found. `ok` is false at the first tolerance violation; the fields then describe
/// the worst element seen.
struct GradcheckResult {
  bool ok = true;
  double max_abs_error = 0;          ///< largest |analytical - numerical| over all checked entries
  std::int64_t input_index = -1;     ///< which input holds the worst entry
  std::int64_t output_index = -1;    ///< which output
  std::int64_t input_element = -1;   ///< flat (row-major) index in that input
  std::int64_t output_element = -1;  ///< flat index in that output
  double analytical = 0;             ///< d output_element / d input_element, from backward
  double numerical = 0;              ///< ... from central differences
  std::string message;               ///< a readable report ("" when ok)
};

/// The function under test: tensors in, tensors out.
using GradcheckFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
/// The same for a function with one output.
using GradcheckFn1 = std::function<Tensor(const std::vector<Tensor>&)>;

/// Checks the Jacobian of `fn` w.r.t. every input that requires grad. Floating-point inputs that
/// require grad and are not float64 are converted to float64 leaves first; inputs that do not
/// require grad are passed through unchanged (and not checked). At least one input must require grad.
GradcheckResult gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});
GradcheckResult gradcheck(const GradcheckFn1& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace kindling::autograd
