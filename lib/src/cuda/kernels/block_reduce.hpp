#pragma once
// Reductions inside a block, shared by the sum, softmax and cross-entropy kernels.
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

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
