#pragma once
// How test_cuda's cases skip: CTest runs every test case in its own process and counts exit code
// 77 as "skipped" (tests/CMakeLists.txt sets SKIP_RETURN_CODE for test_cuda).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kindling/cuda.hpp"

namespace kindling::cuda::testing {

[[noreturn]] inline void skip(const std::string& why) {
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
  std::_Exit(77);
}

/// A real device, or skip.
inline void need_gpu() {
  if (!is_available()) skip("no usable CUDA device: " + unavailable_reason());
}

/// The emulated cuda:0 (only where no real GPU is visible), or skip.
inline void need_emulated_device() {
  if (device_count() > 0) skip("a real GPU is visible: the emulated device is for machines without one");
  use_emulated_device();
}

}  // namespace kindling::cuda::testing
