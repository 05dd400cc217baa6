// ch08.ex3 — matmul v2, shared-memory tiles: kd::cuda::emulated::matmul_v2 (and, compiled by nvcc,
// kd::cuda::gpu::matmul_v2), c = a @ b for a: [M, K], b: [K, N], c: [M, N], row-major. Declared in
// kindling/cuda/kernels.hpp; v1 (naive) and v3 (register blocking) are in lib/src/cuda/kernels/matmul.cpp.
//
// A 16x16 block of threads computes a 16x16 tile of c, one element per thread: the grid is
// ceil(N / 16) blocks along x (columns) by ceil(M / 16) along y (rows). The block walks along K one
// 16x16 tile of a and of b at a time: each thread loads one element of each into shared memory (0
// outside the matrices), a barrier, every thread multiplies its row of a's tile by its column of b's
// tile, another barrier before the next tiles overwrite these. Every element loaded from global
// memory is used 16 times. Any M, N, K: stores outside c are skipped.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

constexpr int kTile = 16;

// BEGIN SOLUTION ex3: the kernel: load a tile of a and of b, barrier, multiply, barrier
__global__ void matmul_tiled(Span<const float> a, Span<const float> b, Span<float> c,
                             int M, int N, int K) {
  __shared__ SharedArray<float, kTile, kTile> as;  // as(i, k): rows of a
  __shared__ SharedArray<float, kTile, kTile> bs;  // bs(k, j): columns of b
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    as(ty, tx) = (row < M && k0 + tx < K) ? a[std::int64_t{row} * K + k0 + tx] : 0.0f;
    bs(ty, tx) = (k0 + ty < K && col < N) ? b[std::int64_t{k0 + ty} * N + col] : 0.0f;
    __syncthreads();  // the tiles are loaded before anyone reads them
    for (int k = 0; k < kTile; ++k) acc += as(ty, k) * bs(k, tx);
    __syncthreads();  // everyone is done reading before the next tiles overwrite them
  }
  if (row < M && col < N) c[std::int64_t{row} * N + col] = acc;
}
// STUB
// END SOLUTION

void matmul_v2(const float* a, const float* b, float* c, int M, int N, int K) {
  // BEGIN SOLUTION ex3: launch one 16x16 block per 16x16 tile of c (nothing when c is empty)
  if (M == 0 || N == 0) return;
  const unsigned tiles_x = static_cast<unsigned>((N + kTile - 1) / kTile);
  const unsigned tiles_y = static_cast<unsigned>((M + kTile - 1) / kTile);
  KD_LAUNCH(matmul_tiled, dim3(tiles_x, tiles_y), dim3(kTile, kTile),
            Span<const float>(a, std::int64_t{M} * K, "a"),
            Span<const float>(b, std::int64_t{K} * N, "b"),
            Span<float>(c, std::int64_t{M} * N, "c"), M, N, K);
  // END SOLUTION
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
