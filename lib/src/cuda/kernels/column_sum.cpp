// The sum over dimension 0 of a [rows, cols] matrix: out[j] = sum_i x[i, j]. A Linear
// layer's bias gradient is this sum of the output gradient over the batch.
// One thread per column walks down its column: neighbouring threads of a warp read
// neighbouring floats of a row (coalesced), and each column is summed in row order, as the
// CPU's sum over dim 0 is, so small matrices agree to the last bit or nearly.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

constexpr int kColumnThreads = 128;

__global__ void column_sum_kernel(Span<const float> x, Span<float> out, int rows, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float acc = 0.0f;
  for (int i = 0; i < rows; ++i) acc += x[static_cast<std::int64_t>(i) * cols + j];
  out[j] = acc;
}

void column_sum(const float* x, float* out, int rows, int cols) {
  if (cols == 0) return;
  const unsigned blocks = static_cast<unsigned>((cols + kColumnThreads - 1) / kColumnThreads);
  KD_LAUNCH(column_sum_kernel, dim3(blocks), dim3(kColumnThreads),
            Span<const float>(x, std::int64_t{rows} * cols, "x"), Span<float>(out, cols, "out"),
            rows, cols);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
