// ch08.ex2 — a block reduction with shared memory: kd::cuda::emulated::sum_v1 (and, compiled by
// nvcc, kd::cuda::gpu::sum_v1), *out += sum(x[0..n)). Declared in kindling/cuda/kernels.hpp.
//
// Blocks of kSumThreads (256) threads, sum_blocks(n) of them (block_reduce.hpp). Each thread adds up
// its share of x (thread_partial_sum); the block then combines its 256 partial sums as a tree in
// shared memory -- 128 threads add pairs, then 64, ... 1, with a __syncthreads() between the levels,
// since each level reads what the one before wrote -- and thread 0 adds the block's sum to out[0]
// with atomicAdd (the blocks run in any order). The exercise is the tree: no warp shuffles
// (sum_v2 is the shuffle version). On the kernel emulator a missing barrier is a race, reported with
// the two threads and the element.
#include "cuda/kernels/block_reduce.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

// BEGIN SOLUTION ex2: the kernel: partial sums in shared memory, then the tree
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
// STUB
// END SOLUTION

void sum_v1(const float* x, std::int64_t n, float* out) {
  // BEGIN SOLUTION ex2: launch sum_blocks(n) blocks of kSumThreads threads
  KD_LAUNCH(sum_shared_tree, dim3(sum_blocks(n)), dim3(kSumThreads),
            Span<const float>(x, n, "x"), Span<float>(out, 1, "out"));
  // END SOLUTION
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
