#pragma once
// Internal: argument checks shared by the nn ops, with messages that name the op, the argument,
// the shapes/dtypes/devices, and a hint.
#include <initializer_list>
#include <string>
#include <utility>

#include "kindling/tensor/tensor.hpp"

namespace kindling::nn::detail {

using NamedTensor = std::pair<const char*, const Tensor*>;

/// PyTorch's "Expected all tensors to be on the same device", naming every device involved.
inline void check_same_device(const char* op, std::initializer_list<NamedTensor> tensors) {
  const Tensor* first = nullptr;
  const char* first_name = nullptr;
  for (const auto& [name, t] : tensors) {
    if (!t->defined()) continue;
    if (!first) {
      first = t;
      first_name = name;
      continue;
    }
    if (t->device() != first->device()) {
      throw DeviceError(std::string(op) + ": expected all tensors to be on the same device, but " + first_name +
                        " is on " + first->device().str() + " and " + name + " is on " + t->device().str() +
                        ". Hint: move the model and the data to one device (model.to(device), x.to(device)).");
    }
  }
}

/// Throws DTypeError unless `t` is float32/float64.
inline void check_floating(const char* op, const char* name, const Tensor& t) {
  if (!t.is_floating_point()) {
    throw DTypeError(std::string(op) + ": expected " + name + " to be float32 or float64 but got " +
                     dtype_name(t.dtype()) + ". Hint: convert it with .to(kd::kFloat32).");
  }
}

/// Throws DTypeError unless every defined tensor has the dtype of `ref`.
inline void check_same_dtype(const char* op, std::initializer_list<NamedTensor> tensors) {
  const Tensor* first = nullptr;
  const char* first_name = nullptr;
  for (const auto& [name, t] : tensors) {
    if (!t->defined()) continue;
    if (!first) {
      first = t;
      first_name = name;
      continue;
    }
    if (t->dtype() != first->dtype()) {
      throw DTypeError(std::string(op) + ": expected " + name + " to have dtype " + dtype_name(first->dtype()) +
                       " like " + first_name + ", but got " + dtype_name(t->dtype()) +
                       ". Hint: model.to(dtype) converts all parameters; x.to(dtype) converts the input.");
    }
  }
}

/// bfloat16 inputs of the normalisation and pooling kernels (PyTorch 1.13's CPU kernels take bfloat16
/// there, not float16). Those kernels compute in float32 and round the result to bfloat16 once;
/// Kindling does the same a tensor at a time: widen (exactly), run the float32 kernel, round. The
/// casts are recorded, so gradients flow back in bfloat16 to the input and in float32 to float32
/// parameters (a BatchNorm2d under autocast).
inline bool computes_in_float32(const Tensor& input) { return input.defined() && input.dtype() == kBFloat16; }
inline Tensor widened(const Tensor& t) { return t.defined() && t.dtype() == kBFloat16 ? t.to(kFloat32) : t; }

}  // namespace kindling::nn::detail
