#pragma once
// Reductions inside a block, shared by the sum, softmax and cross-entropy kernels (and yours:
// chapter 8's exercises may use everything in this header).
//
// A warp (32 threads) reduces with shuffles: at each of 5 steps a lane adds the value
// of the lane `offset` above it, halving the span, with no shared memory and no
// barrier. A block then reduces its warps' results: lane 0 of each warp writes its
// warp's value to `scratch`, a barrier, and the first warp reduces those. The result is
// returned to every thread (another barrier, so a caller may reuse `scratch` right
// away).
#include "kindling/cuda/kernel.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

constexpr unsigned kFullMask = 0xffffffffu;

// [snippet: warp-sum]
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(kFullMask, v, offset);
  return v;  // lane 0 holds the warp's sum
}
// [end]

__device__ __forceinline__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_down_sync(kFullMask, v, offset));
  return v;
}

// blockDim.x must be a multiple of 32 (every lane of every warp exists) and at most
// 1024.
template <bool IsMax>
__device__ float block_reduce(float v, SharedArray<float, 32>& scratch,
                              SharedArray<float, 1>& result) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = IsMax ? warp_max(v) : warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w =
        lane < warps ? static_cast<float>(scratch[lane]) : (IsMax ? -INFINITY : 0.0f);
    w = IsMax ? warp_max(w) : warp_sum(w);
    if (lane == 0) result[0] = w;
  }
  __syncthreads();
  return result[0];
}

// ---- what both sum kernels share (sum.cpp, and solutions/ch08/ex2_block_sum.cpp) ----------
constexpr int kSumThreads = 256;

// This thread's share of x: a grid-stride loop, so a few hundred blocks cover any length.
__device__ __forceinline__ float thread_partial_sum(Span<const float> x) {
  float acc = 0.0f;
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
       i < x.size(); i += step)
    acc += x[i];
  return acc;
}

// The grid of a sum: one block per 256 elements, at least 1 and at most 1024.
inline unsigned sum_blocks(std::int64_t n) {
  const std::int64_t blocks = (n + kSumThreads - 1) / kSumThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 1024 ? 1024 : blocks));
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
