#pragma once
// How the cuda layer reaches device memory: the real CUDA runtime, or host memory for the
// emulated device. runtime.cpp picks one when a device is set up.
#include <cstddef>

namespace kindling::cuda::detail {

struct Backend {
  const char* name;                                   // "CUDA" or "emulated"
  void* (*raw_alloc)(std::size_t nbytes);             // nullptr when the device is out of memory
  void (*raw_free)(void* ptr);
  void (*to_device)(void* dst, const void* src, std::size_t nbytes);  // host -> device
  void (*to_host)(void* dst, const void* src, std::size_t nbytes);    // device -> host
};

/// The backend set up by is_available() or use_emulated_device(); null before.
const Backend* active_backend();
/// Registers the caching allocator and Tensor::to's hooks for `backend` (caching_allocator.cpp,
/// copy.cpp).
void install(const Backend* backend);

}  // namespace kindling::cuda::detail
