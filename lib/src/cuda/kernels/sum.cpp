// Summing a vector, two versions. Every thread first adds up its share of the input
// (thread_partial_sum, block_reduce.hpp); then the block combines its threads' partial
// sums, and one thread per block adds the block's sum to the result with atomicAdd.
//   v1  a tree in shared memory: 256 partial sums, then 128 threads add pairs, then 64,
//       ... 1, with a barrier between the levels (8 barriers). Chapter 8's exercise 2:
//       solutions/ch08/ex2_block_sum.cpp.
//   v2  warp shuffles: each warp reduces in registers (no shared memory, no barrier),
//       then the block reduces its 8 warp sums (block_reduce.hpp): 2 barriers.
#include "cuda/kernels/block_reduce.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

__global__ void sum_warp_shuffle(Span<const float> x, Span<float> out) {
  __shared__ SharedArray<float, 32> scratch;
  __shared__ SharedArray<float, 1> result;
  const float total = block_reduce<false>(thread_partial_sum(x), scratch, result);
  if (threadIdx.x == 0) atomicAdd(&out[0], total);
}

void sum_v2(const float* x, std::int64_t n, float* out) {
  KD_LAUNCH(sum_warp_shuffle, dim3(sum_blocks(n)), dim3(kSumThreads),
            Span<const float>(x, n, "x"), Span<float>(out, 1, "out"));
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
