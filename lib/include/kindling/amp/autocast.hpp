#pragma once
/// @file
/// AutocastGuard (`torch.autocast`): inside its scope, the ops that profit from 16-bit math run
/// in it, and the ops that need float32's range and precision stay in float32.
///
///     {
///       kd::amp::AutocastGuard autocast({.dtype = kd::kBFloat16});
///       kd::Tensor logits = model(x);          // Linear: bfloat16 matmuls, bfloat16 logits
///       kd::Tensor loss = criterion(logits, y);  // the loss: float32
///     }
///     loss.backward();  // outside the region, as PyTorch recommends; weight gradients are float32
///
/// PyTorch 1.13's lists: matmul, mm, linear and conv2d run in the autocast dtype; the losses,
/// conv_transpose2d and prod run in float32; every other op runs in the dtype of its inputs. A
/// weight is cast once per region (the outermost guard clears the cache when it ends). Guards
/// nest: an inner `{.enabled = false}` turns autocast off for a scope, e.g. for a numerically
/// sensitive part.
///
/// As `torch.autocast(device_type)`, a guard is for one device type: the CPU (bfloat16 by
/// default) or CUDA (float16 by default, chapter 8's 16-bit kernels). A CPU region leaves cuda
/// tensors in float32 and the other way round:
///
///     kd::amp::AutocastGuard autocast({.device_type = kd::DeviceType::CUDA});  // float16
#include <optional>

#include "kindling/tensor/autocast_mode.hpp"

namespace kindling::amp {

struct AutocastOptions {
  /// The device type whose ops the region changes (torch.autocast's device_type).
  DeviceType device_type = DeviceType::CPU;
  /// The lower-precision dtype, bfloat16 or float16; unset: PyTorch's default for the device type
  /// (bfloat16 on the CPU, float16 on CUDA).
  std::optional<DType> dtype;
  bool enabled = true;
  /// Cache the 16-bit copies of weights within the region.
  bool cache_enabled = true;
};

class AutocastGuard {
 public:
  explicit AutocastGuard(AutocastOptions options = {});
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType device_type_;
  kindling::detail::AutocastState previous_;  // qualified: kindling::amp::detail exists too
};

}  // namespace kindling::amp
