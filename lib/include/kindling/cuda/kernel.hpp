#pragma once
/// @file
/// The one header a kernel source includes. Compiled by nvcc it is CUDA: `Span` is a bare pointer
/// and a length, `SharedArray` a plain array in shared memory, `KD_LAUNCH` is `<<<grid, block>>>`
/// followed by a check of the launch. Compiled by g++ or clang it is the kernel emulator
/// (`kindling/cuda/emulator.hpp`), which runs the same source on the CPU and checks every access.
///
/// `KINDLING_KERNEL_NS` names the namespace the kernels of a source land in: `gpu` under nvcc,
/// `emulated` otherwise, so one source compiled both ways links into one program.
#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kindling/tensor/error.hpp"

#define KINDLING_KERNEL_NS gpu

namespace kindling::cuda::gpu {

/// A global-memory buffer: a pointer and a length (unchecked on the device).
template <class T>
class Span {
 public:
  Span() = default;
  __host__ __device__ Span(T* data, std::int64_t size, const char* = "buffer")
      : data_(data), size_(size) {}
  template <class U>
    requires std::is_same_v<const U, T>
  __host__ __device__ Span(const Span<U>& other) : data_(other.data()), size_(other.size()) {}
  __device__ __forceinline__ T& operator[](std::int64_t i) const { return data_[i]; }
  __host__ __device__ T* data() const { return data_; }
  __host__ __device__ std::int64_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::int64_t size_ = 0;
};

/// A `__shared__` array of `Dims...` elements, indexed `a(i, j)` (or `a[i]` with one extent).
template <class T, std::size_t... Dims>
struct SharedArray {
  static constexpr std::size_t kSize = (Dims * ...);
  static constexpr std::size_t rank = sizeof...(Dims);
  T data_[kSize];
  template <class... I>
  __device__ __forceinline__ T& operator()(I... index) {
    const std::size_t dims[] = {Dims...};
    const std::size_t idx[] = {static_cast<std::size_t>(index)...};
    std::size_t flat = 0;
    for (std::size_t d = 0; d < rank; ++d) flat = flat * dims[d] + idx[d];
    return data_[flat];
  }
  template <class I>
  __device__ __forceinline__ T& operator[](I index) { return data_[index]; }
};

/// The 16-bit element types of chapter 6's mixed precision, as kernels see them; to_float and
/// from_float<T> convert (round to nearest, ties to even), and arithmetic happens in float32.
using half_t = __half;
using bfloat16_t = __nv_bfloat16;
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

}  // namespace kindling::cuda::gpu

namespace kindling::cuda {

/// Throws a DeviceError when the last launch failed (bad configuration, no device, ...).
inline void check_launch(const char* kernel) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw DeviceError(std::string("kernel ") + kernel + ": launch failed: " + cudaGetErrorString(e));
}

}  // namespace kindling::cuda

#define KD_LAUNCH(kernel, grid, block, ...)   \
  do {                                         \
    kernel<<<grid, block>>>(__VA_ARGS__);      \
    ::kindling::cuda::check_launch(#kernel);   \
  } while (0)

/// A check inside a kernel: on a GPU a failed one prints and traps (the launch fails, like assert).
#define KD_CHECK(cond, message)                                 \
  do {                                                          \
    if (!(cond)) {                                              \
      printf("kernel check failed: %s\n", message);             \
      __trap();                                                 \
    }                                                           \
  } while (0)

#else
#include "kindling/cuda/emulator.hpp"
#include "kindling/tensor/half.hpp"

namespace kindling::cuda::emulated {
/// The 16-bit element types (kindling::Half and BFloat16 here, __half and __nv_bfloat16 under
/// nvcc), with the same conversions: round to nearest, ties to even; arithmetic in float32.
using half_t = ::kindling::Half;
using bfloat16_t = ::kindling::BFloat16;
inline float to_float(float v) { return v; }
inline float to_float(::kindling::Half v) { return static_cast<float>(v); }
inline float to_float(::kindling::BFloat16 v) { return static_cast<float>(v); }
template <class T>
inline T from_float(float v) { return T(v); }
}  // namespace kindling::cuda::emulated

/// A check inside a kernel: on the emulator a failed one stops the launch with a KernelError.
#define KD_CHECK(cond, message)                                     \
  do {                                                              \
    if (!(cond)) ::kindling::cuda::emu::fail(message);              \
  } while (0)
#define KINDLING_KERNEL_NS emulated
#endif

namespace kindling::cuda::KINDLING_KERNEL_NS {

/// The host's kindling::Half / BFloat16 pointer as the kernel's half_t / bfloat16_t one: the same
/// 16 bits, so a launcher hands a tensor's memory to a 16-bit kernel without a copy.
template <class K, class H>
const K* as_kernel(const H* p) {
  static_assert(sizeof(K) == sizeof(H));
  return reinterpret_cast<const K*>(p);
}
template <class K, class H>
K* as_kernel(H* p) {
  static_assert(sizeof(K) == sizeof(H));
  return reinterpret_cast<K*>(p);
}

/// Blocks of `threads` for a grid-stride loop over n elements, at most `max_blocks` (the loop
/// covers the rest), as the elementwise kernels launch.
inline unsigned grid_stride_blocks(std::int64_t n, int threads = 256, std::int64_t max_blocks = 2048) {
  const std::int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < max_blocks ? blocks : max_blocks);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
