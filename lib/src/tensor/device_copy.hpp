#pragma once
// Hooks through which Tensor::to(Device) reaches a device layer: chapter 8 (kindling_cuda)
// registers CUDA's when a device is set up. `to_device` copies a CPU tensor onto the device,
// `to_host` a device tensor (any strides) back to a CPU tensor, `upload_into` a contiguous CPU
// tensor into an existing contiguous device tensor of its dtype and size (Tensor::copy_).
#include "kindling/tensor/tensor.hpp"

namespace kindling::detail {

struct DeviceCopy {
  Tensor (*to_device)(const Tensor& cpu_src, Device target) = nullptr;
  Tensor (*to_host)(const Tensor& device_src) = nullptr;
  void (*upload_into)(const Tensor& device_dst, const Tensor& cpu_src) = nullptr;
};
void register_device_copy(DeviceType type, DeviceCopy copy);
const DeviceCopy& device_copy(DeviceType type);

}  // namespace kindling::detail
