#pragma once
/// @file
/// Page-locked ("pinned") host memory: torch.Tensor.pin_memory() and is_pinned(). The GPU copies
/// from pinned memory by DMA, without the CPU, so a copy to the device can run asynchronously
/// (kd::cuda::to_device_async) while the CPU prepares the next batch. Pinning needs a CUDA device
/// set up (chapter 8: kd::cuda::is_available(), or the emulated device); without one pin_memory()
/// throws a DeviceError, as PyTorch does.
#include "kindling/tensor/tensor.hpp"

namespace kindling {

/// A contiguous copy of the CPU tensor `t` in pinned host memory (t itself when it is pinned already).
Tensor pin_memory(const Tensor& t);
/// True when `t`'s storage is pinned host memory made by pin_memory().
bool is_pinned(const Tensor& t);

namespace detail {
/// How the tensor layer reaches the device layer that pins memory (chapter 8 registers it).
struct PinnedMemory {
  Tensor (*pin)(const Tensor& t) = nullptr;
  bool (*is_pinned)(const Tensor& t) = nullptr;
};
void register_pinned_memory(PinnedMemory hooks);
/// True once a device layer registered its hooks: the DataLoader pins its batches only then.
bool pinned_memory_available();
}  // namespace detail

}  // namespace kindling
