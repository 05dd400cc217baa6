// ch08.ex4 — softmax over the rows of a matrix: kd::cuda::emulated::softmax_rows (and, compiled by
// nvcc, kd::cuda::gpu::softmax_rows), out[r, :] = softmax(x[r, :]) for x: [rows, cols]. Declared in
// kindling/cuda/kernels.hpp.
//
// One block per row (grid = rows), kSoftmaxThreads threads a block, whatever cols is: each thread
// strides over the row (j = threadIdx.x, + blockDim.x, ...). Three passes: the row's maximum, the sum
// of exp(x - max) (subtracting the maximum first, so exp never overflows), then
// out = exp(x - max) / sum. The block combines its threads' values with block_reduce
// (block_reduce.hpp: warp shuffles, then the warps' results through shared memory), which returns
// the result to every thread of the block.
#include <cmath>

#include "cuda/kernels/block_reduce.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

constexpr int kSoftmaxThreads = 128;

// BEGIN SOLUTION ex4: the kernel: the row's max, the sum of exp(x - max), then the quotients
__global__ void softmax_kernel(Span<const float> x, Span<float> out, int cols) {
  __shared__ SharedArray<float, 32> scratch;
  __shared__ SharedArray<float, 1> result;
  const std::int64_t start = static_cast<std::int64_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, x[start + j]);
  m = block_reduce<true>(m, scratch, result);
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) s += expf(x[start + j] - m);
  s = block_reduce<false>(s, scratch, result);
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    out[start + j] = expf(x[start + j] - m) / s;
}
// STUB
// END SOLUTION

void softmax_rows(const float* x, float* out, int rows, int cols) {
  // BEGIN SOLUTION ex4: launch one block of kSoftmaxThreads per row (nothing for an empty matrix)
  if (rows == 0 || cols == 0) return;
  const std::int64_t n = std::int64_t{rows} * cols;
  KD_LAUNCH(softmax_kernel, dim3(rows), dim3(kSoftmaxThreads), Span<const float>(x, n, "x"),
            Span<float>(out, n, "out"), cols);
  // END SOLUTION
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
