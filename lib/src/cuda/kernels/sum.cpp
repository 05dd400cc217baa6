// Summing a vector, two versions. Every thread first adds up its share of the input
// (a grid-stride loop, so a few hundred blocks cover any length); then the block
// combines its threads' partial sums, and one thread per block adds the block's sum to
// the result with atomicAdd.
//   v1  a tree in shared memory: 256 partial sums, then 128 threads add pairs, then 64,
//       ... 1, with a barrier between the levels (8 barriers).
//   v2  warp shuffles: each warp reduces in registers (no shared memory, no barrier),
//       then the block reduces its 8 warp sums (block_reduce.hpp): 2 barriers.
#include "cuda/kernels/block_reduce.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

constexpr int kSumThreads = 256;

__device__ __forceinline__ float thread_partial_sum(Span<const float> x) {
  float acc = 0.0f;
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
       i < x.size(); i += step)
    acc += x[i];
  return acc;
}

// [snippet: sum-tree]
__global__ void sum_shared_tree(Span<const float> x, Span<float> out) {
  __shared__ SharedArray<float, kSumThreads> partial;
  const int t = threadIdx.x;
  partial[t] = thread_partial_sum(x);
  __syncthreads();
  for (int s = kSumThreads / 2; s > 0; s /= 2) {  // each level halves the live sums
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();  // the next level reads what this one wrote
  }
  if (t == 0) atomicAdd(&out[0], static_cast<float>(partial[0]));
}
// [end]

__global__ void sum_warp_shuffle(Span<const float> x, Span<float> out) {
  __shared__ SharedArray<float, 32> scratch;
  __shared__ SharedArray<float, 1> result;
  const float total = block_reduce<false>(thread_partial_sum(x), scratch, result);
  if (threadIdx.x == 0) atomicAdd(&out[0], total);
}

namespace {
unsigned sum_blocks(std::int64_t n) {
  const std::int64_t blocks = (n + kSumThreads - 1) / kSumThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 1024 ? 1024 : blocks));
}
}  // namespace

void sum_v1(const float* x, std::int64_t n, float* out) {
  KD_LAUNCH(sum_shared_tree, dim3(sum_blocks(n)), dim3(kSumThreads),
            Span<const float>(x, n, "x"), Span<float>(out, 1, "out"));
}

void sum_v2(const float* x, std::int64_t n, float* out) {
  KD_LAUNCH(sum_warp_shuffle, dim3(sum_blocks(n)), dim3(kSumThreads),
            Span<const float>(x, n, "x"), Span<float>(out, 1, "out"));
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
