// Conversions between float32 and the 16-bit dtypes of chapter 6's autocast on the device:
// x.to(kd::kHalf) / .to(kd::kBFloat16) and back. Each element is converted on its own (nearest,
// ties to even, overflow to inf, NaN kept as a NaN), with the same rounding as the CPU's casts
// (the emulator runs kindling::Half's own conversion; a GPU its __float2half_rn), so a device cast
// matches the CPU's bit for bit. An elementwise copy is limited by memory: a grid-stride loop, as
// in relu.cpp.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

// float32 -> float16 / bfloat16: rounded once, to nearest, ties to even.
template <class To>
__global__ void cast_to_16bit(Span<const float> x, Span<To> out) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < x.size();
       i += step)
    out[i] = from_float<To>(x[i]);
}

// float16 / bfloat16 -> float32: exact (every 16-bit value is a float32 value).
template <class From>
__global__ void cast_from_16bit(Span<const From> x, Span<float> out) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < x.size();
       i += step)
    out[i] = to_float(x[i]);
}

namespace {

template <class K, class H>
void launch_to_16bit(const float* x, H* out, std::int64_t n) {
  if (n == 0) return;
  KD_LAUNCH(cast_to_16bit<K>, dim3(grid_stride_blocks(n)), dim3(256), Span<const float>(x, n, "x"),
            Span<K>(as_kernel<K>(out), n, "out"));
}

template <class K, class H>
void launch_from_16bit(const H* x, float* out, std::int64_t n) {
  if (n == 0) return;
  KD_LAUNCH(cast_from_16bit<K>, dim3(grid_stride_blocks(n)), dim3(256),
            Span<const K>(as_kernel<K>(x), n, "x"), Span<float>(out, n, "out"));
}

}  // namespace

void cast_float_to_half(const float* x, Half* out, std::int64_t n) {
  launch_to_16bit<half_t>(x, out, n);
}
void cast_half_to_float(const Half* x, float* out, std::int64_t n) {
  launch_from_16bit<half_t>(x, out, n);
}
void cast_float_to_bfloat16(const float* x, BFloat16* out, std::int64_t n) {
  launch_to_16bit<bfloat16_t>(x, out, n);
}
void cast_bfloat16_to_float(const BFloat16* x, float* out, std::int64_t n) {
  launch_from_16bit<bfloat16_t>(x, out, n);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
