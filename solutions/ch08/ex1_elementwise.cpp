// ch08.ex1 — the elementwise kernel with broadcasting and strides, behind kd::cuda::emulated::binary
// (and, compiled by nvcc, kd::cuda::gpu::binary). Declared in kindling/cuda/kernels.hpp.
//
// One thread per output element, in a grid-stride loop (so any grid covers any size): each thread
// turns its flat index into an index per dimension, then into an offset in each input through that
// input's strides. A broadcast input has stride 0 along the broadcast dimension: the same element is
// read by many threads. The output is contiguous. On the kernel emulator every index is checked: an
// offset outside `a` or `b` stops the launch with a KernelError naming the thread and the block.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

__device__ __forceinline__ float apply(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::Add:
      return x + y;
    case BinaryOp::Sub:
      return x - y;
    case BinaryOp::Mul:
      return x * y;
    case BinaryOp::Div:
      return x / y;
  }
  return 0.0f;
}

// BEGIN SOLUTION ex1: the kernel: a flat index -> an index per dimension -> an offset per input
__global__ void binary_strided(BinaryOp op, Span<const float> a, Span<const float> b,
                               Span<float> out, BinaryLayout L) {
  const std::int64_t n = out.size();
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += step) {
    std::int64_t rest = i, ia = L.a_offset, ib = L.b_offset;
    for (int d = L.ndim - 1; d >= 0; --d) {  // the last dimension varies fastest
      const std::int64_t idx = rest % L.sizes[d];
      rest /= L.sizes[d];
      ia += idx * L.a_strides[d];
      ib += idx * L.b_strides[d];
    }
    out[i] = apply(op, a[ia], b[ib]);
  }
}
// STUB
// END SOLUTION

void binary(BinaryOp op, const float* a, std::int64_t a_len, const float* b,
            std::int64_t b_len, float* out, std::int64_t n,
            const BinaryLayout& layout) {
  // BEGIN SOLUTION ex1: launch it over n outputs (nothing to launch when n is 0)
  if (n == 0) return;
  const int threads = 256;
  // Enough blocks to fill a GPU, not one per element: the grid-stride loop does the
  // rest.
  const std::int64_t blocks = (n + threads - 1) / threads;
  const unsigned grid = static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
  KD_LAUNCH(binary_strided, dim3(grid), dim3(threads), op,
            Span<const float>(a, a_len, "a"), Span<const float>(b, b_len, "b"),
            Span<float>(out, n, "out"), layout);
  // END SOLUTION
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
