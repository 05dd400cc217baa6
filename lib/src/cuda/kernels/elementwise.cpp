// The elementwise kernel with broadcasting and strides: one thread per output element
// (a grid-stride loop, so any grid covers any size), each turning its flat index into
// an index per dimension and then into an offset in each input through that input's
// strides. A broadcast input has stride 0 along the broadcast dimension: the same
// element is read by many threads. Compiled by g++ into the emulator and by nvcc
// (lib/src/cuda/gpu/kernels.cu) for the device.
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

// [snippet: binary-strided]
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
// [end]

void binary(BinaryOp op, const float* a, std::int64_t a_len, const float* b,
            std::int64_t b_len, float* out, std::int64_t n,
            const BinaryLayout& layout) {
  if (n == 0) return;
  const int threads = 256;
  // Enough blocks to fill a GPU, not one per element: the grid-stride loop does the
  // rest.
  const std::int64_t blocks = (n + threads - 1) / threads;
  const unsigned grid = static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
  KD_LAUNCH(binary_strided, dim3(grid), dim3(threads), op,
            Span<const float>(a, a_len, "a"), Span<const float>(b, b_len, "b"),
            Span<float>(out, n, "out"), layout);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
