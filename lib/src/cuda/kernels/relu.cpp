// ReLU and its gradient, the activation of a training loop on the device (SimpleNet's):
//   forward   out[i] = x[i] < 0 ? 0 : x[i]   (NaN passes through, as on the CPU)
//   backward  dx[i]  = x[i] > 0 ? g[i] : 0   (PyTorch's threshold_backward: 0 at x == 0)
// The backward reads x or the forward's output alike (out > 0 exactly where x > 0), so the two
// devices agree element for element. Grid-stride loops, as in adam.cpp: a bounded grid covers
// any length.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

namespace {
constexpr int kReluThreads = 256;
inline unsigned relu_blocks(std::int64_t n) {
  const std::int64_t blocks = (n + kReluThreads - 1) / kReluThreads;
  return static_cast<unsigned>(blocks > 2048 ? 2048 : blocks);
}
}  // namespace

__global__ void relu_kernel(Span<const float> x, Span<float> out) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < x.size();
       i += step) {
    const float v = x[i];
    out[i] = v < 0.0f ? 0.0f : v;  // not `v > 0 ? v : 0`: NaN passes, as on the CPU
  }
}

__global__ void relu_backward_kernel(Span<const float> grad, Span<const float> x,
                                     Span<float> dx) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < x.size();
       i += step)
    dx[i] = x[i] <= 0.0f ? 0.0f : grad[i];  // not `x > 0 ? grad : 0`: NaN passes, as on the CPU
}

void relu(const float* x, float* out, std::int64_t n) {
  if (n == 0) return;
  KD_LAUNCH(relu_kernel, dim3(relu_blocks(n)), dim3(kReluThreads), Span<const float>(x, n, "x"),
            Span<float>(out, n, "out"));
}

void relu_backward(const float* grad, const float* x, float* dx, std::int64_t n) {
  if (n == 0) return;
  KD_LAUNCH(relu_backward_kernel, dim3(relu_blocks(n)), dim3(kReluThreads),
            Span<const float>(grad, n, "grad"), Span<const float>(x, n, "x"),
            Span<float>(dx, n, "dx"));
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
