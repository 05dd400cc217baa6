// One fused Adam step: a single kernel reads each parameter's value, gradient and two
// moments once and writes the three updated values, where a chain of elementwise ops
// would read and write the whole parameter set once per op. The update is PyTorch's
// (torch.optim.Adam, weight decay added to the gradient):
//   g = grad + wd * p;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)      bc1 = 1 - b1^t, bc2 = 1 - b2^t
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

__global__ void adam_kernel(Span<float> p, Span<const float> grad, Span<float> m,
                            Span<float> v, AdamStep h) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  const float step_size = h.lr / h.bias_correction1;
  const float sqrt_bc2 = sqrtf(h.bias_correction2);
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
       i < p.size(); i += step) {
    const float g = grad[i] + h.weight_decay * p[i];
    const float mi = h.beta1 * m[i] + (1.0f - h.beta1) * g;
    const float vi = h.beta2 * v[i] + (1.0f - h.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    p[i] -= step_size * mi / (sqrtf(vi) / sqrt_bc2 + h.eps);
  }
}

void adam_step(float* param, const float* grad, float* exp_avg, float* exp_avg_sq,
               std::int64_t n, const AdamStep& h) {
  if (n == 0) return;
  const std::int64_t blocks = (n + 255) / 256;
  KD_LAUNCH(adam_kernel, dim3(static_cast<unsigned>(blocks < 2048 ? blocks : 2048)),
            dim3(256), Span<float>(param, n, "param"),
            Span<const float>(grad, n, "grad"), Span<float>(exp_avg, n, "exp_avg"),
            Span<float>(exp_avg_sq, n, "exp_avg_sq"), h);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
