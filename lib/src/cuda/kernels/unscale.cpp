// GradScaler's kernel on the device (PyTorch's _amp_foreach_non_finite_check_and_unscale_, one
// gradient at a time): every element is multiplied by 1/scale in place, and *found_inf becomes 1
// if any element is inf or NaN. The multiply happens either way (an inf stays inf, which the
// skipped step never uses). Every thread that finds one writes the same 1.0f, so the unordered
// stores agree, as in PyTorch's kernel; the host reads the flag after the launch.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

__global__ void unscale_kernel(Span<float> grad, float inv_scale, Span<float> found_inf) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < grad.size();
       i += step) {
    const float v = grad[i];
    if (!(v - v == 0.0f)) found_inf[0] = 1.0f;  // inf - inf and NaN - NaN are NaN: not finite
    grad[i] = inv_scale == 1.0f ? v : v * inv_scale;
  }
}

void unscale_and_check(float* grad, std::int64_t n, float inv_scale, float* found_inf) {
  if (n == 0) return;
  KD_LAUNCH(unscale_kernel, dim3(grid_stride_blocks(n)), dim3(256),
            Span<float>(grad, n, "grad"), inv_scale, Span<float>(found_inf, 1, "found_inf"));
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
