#pragma once
/// @file
/// Is there a GPU, which one, and why not: torch.cuda.is_available() and friends.
#include <cstddef>
#include <string>

#include "kindling/tensor/device.hpp"

namespace kindling::cuda {

/// True when this build has CUDA and a device is visible (torch.cuda.is_available()). The first
/// call that finds a device sets it up: after it, tensors can move to "cuda:N" with to().
bool is_available();
/// Number of visible devices (0 without CUDA, a driver or a device).
int device_count();
/// Why is_available() is false, in words ("" when it is true): built without CUDA, no driver, no
/// device, or a driver older than the toolkit the build used.
std::string unavailable_reason();
/// True when this build compiled the kernels with nvcc.
bool built_with_cuda();
/// CUDA versions as numbers like 13000 (= 13.0); 0 when unknown.
int driver_version();
int runtime_version();

/// What cudaGetDeviceProperties says about a device.
struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;        ///< compute capability
  std::size_t total_memory = 0;    ///< bytes
  int multiprocessors = 0;
};
DeviceProperties get_device_properties(int index = 0);
/// torch.cuda.get_device_name(i).
std::string get_device_name(int index = 0);
/// Waits for every kernel and copy queued on the device (torch.cuda.synchronize()).
void synchronize();

/// Sets up an *emulated* cuda:0 for machines without a GPU: its memory is ordinary host memory,
/// copies are memcpy, and kd::cuda::emulated's kernels run on it through the kernel emulator. It
/// lets the code that moves tensors and models to the device (and its errors) run anywhere; it
/// says nothing about speed. Refused when a real device is already set up.
void use_emulated_device();
/// True when cuda:0 is the emulated device.
bool is_emulated();

/// The caching device allocator's statistics (torch.cuda.memory_allocated / memory_reserved):
/// bytes in blocks tensors use, and bytes held from the device (in use + cached for reuse).
std::size_t memory_allocated();
std::size_t memory_reserved();
/// Returns cached, unused blocks to the device (torch.cuda.empty_cache()).
void empty_cache();

}  // namespace kindling::cuda
