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
/// PyTorch 1.13's CPU lists: matmul, mm, linear and conv2d run in the autocast dtype; the losses
/// run in float32; every other op runs in the dtype of its inputs. A weight is cast once per
/// region (the outermost guard clears the cache when it ends). Guards nest: an inner
/// `{.enabled = false}` turns autocast off for a scope, e.g. for a numerically sensitive part.
#include "kindling/tensor/autocast_mode.hpp"

namespace kindling::amp {

struct AutocastOptions {
  /// The lower-precision dtype: bfloat16 (PyTorch's CPU autocast) or float16 (its CUDA one).
  DType dtype = kBFloat16;
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
  detail::AutocastState previous_;
};

}  // namespace kindling::amp
