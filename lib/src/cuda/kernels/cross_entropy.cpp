// Cross-entropy over the rows of a [rows, classes] matrix of logits: one block per row.
// The block finds the row's maximum (subtracted before exp, so exp never overflows),
// then the sum of the exponentials, each with block_reduce (warp shuffles, then the
// warps' results), as the softmax kernel does (chapter 8's exercise 4,
// solutions/ch08/ex4_softmax.cpp):
//   loss[r] = (max - x[r, target[r]]) + log(sum)  (-log softmax there)
#include "cuda/kernels/block_reduce.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

constexpr int kRowThreads = 128;

// The row's maximum and sum of exp(x - max), known to every thread of the block.
struct RowStats {
  float max, sum;
};

__device__ RowStats row_stats(Span<const float> x, std::int64_t row_start, int cols,
                              SharedArray<float, 32>& scratch,
                              SharedArray<float, 1>& result) {
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, x[row_start + j]);
  m = block_reduce<true>(m, scratch, result);
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) s += expf(x[row_start + j] - m);
  s = block_reduce<false>(s, scratch, result);
  return {m, s};
}

__global__ void cross_entropy_kernel(Span<const float> logits,
                                     Span<const std::int64_t> target, Span<float> loss,
                                     int classes) {
  __shared__ SharedArray<float, 32> scratch;
  __shared__ SharedArray<float, 1> result;
  const int r = blockIdx.x;
  const std::int64_t start = static_cast<std::int64_t>(r) * classes;
  const RowStats st = row_stats(logits, start, classes, scratch, result);
  if (threadIdx.x == 0) {
    const std::int64_t t = target[r];
    KD_CHECK(t >= 0 && t < classes, "cross_entropy: a target is outside [0, classes)");
    // (max - x_t) first: exact, where max + log(sum) rounded first loses digits for large logits.
    loss[r] = (st.max - logits[start + t]) + logf(st.sum);
  }
}

void cross_entropy_rows(const float* logits, const std::int64_t* target, float* loss,
                        int rows, int classes) {
  if (rows == 0) return;
  const std::int64_t n = std::int64_t{rows} * classes;
  KD_LAUNCH(cross_entropy_kernel, dim3(rows), dim3(kRowThreads),
            Span<const float>(logits, n, "logits"),
            Span<const std::int64_t>(target, rows, "target"),
            Span<float>(loss, rows, "loss"), classes);
}

// The gradient of the mean loss: d loss / d logits[r, c] = (softmax(x[r, :])[c] - [c == t]) * g / rows,
// g the upstream gradient of the 0-d loss, read from device memory (no copy to the host).
__global__ void cross_entropy_backward_kernel(Span<const float> logits,
                                              Span<const std::int64_t> target,
                                              Span<const float> grad, Span<float> dlogits,
                                              int rows, int classes) {
  __shared__ SharedArray<float, 32> scratch;
  __shared__ SharedArray<float, 1> result;
  const int r = blockIdx.x;
  const std::int64_t start = static_cast<std::int64_t>(r) * classes;
  const RowStats st = row_stats(logits, start, classes, scratch, result);
  const std::int64_t t = target[r];
  KD_CHECK(t >= 0 && t < classes, "cross_entropy: a target is outside [0, classes)");
  const float scale = grad[0] / static_cast<float>(rows);
  for (int j = threadIdx.x; j < classes; j += blockDim.x) {
    const float p = expf(logits[start + j] - st.max) / st.sum;
    dlogits[start + j] = (p - (j == t ? 1.0f : 0.0f)) * scale;
  }
}

void cross_entropy_backward_rows(const float* logits, const std::int64_t* target,
                                 const float* grad, float* dlogits, int rows, int classes) {
  if (rows == 0) return;
  const std::int64_t n = std::int64_t{rows} * classes;
  KD_LAUNCH(cross_entropy_backward_kernel, dim3(rows), dim3(kRowThreads),
            Span<const float>(logits, n, "logits"),
            Span<const std::int64_t>(target, rows, "target"), Span<const float>(grad, 1, "grad"),
            Span<float>(dlogits, n, "dlogits"), rows, classes);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
