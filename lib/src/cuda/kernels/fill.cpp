// out[i] = value: zero_() and fill_() on the device (an optimizer's zero_grad, a fresh
// accumulator), a grid-stride loop as in relu.cpp.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

__global__ void fill_kernel(Span<float> out, float value) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < out.size();
       i += step)
    out[i] = value;
}

void fill(float* out, std::int64_t n, float value) {
  if (n == 0) return;
  const std::int64_t blocks = (n + 255) / 256;
  KD_LAUNCH(fill_kernel, dim3(static_cast<unsigned>(blocks < 2048 ? blocks : 2048)), dim3(256),
            Span<float>(out, n, "out"), value);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
