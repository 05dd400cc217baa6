// Matrix multiplication c = a @ b (a: [M, K], b: [K, N], c: [M, N], row-major), in
// three versions:
//   v1  naive: one thread per element of c; each reads a row of a and a column of b
//       from global memory, 2K loads for 2K flops: the loads are the bottleneck.
//   v2  shared-memory tiles: a 16x16 block computes a 16x16 tile of c; it walks along K
//       one 16x16 tile of a and of b at a time, each thread loading one element of
//       each into shared memory, so every element loaded from global memory is used 16
//       times. Chapter 8's exercise 3: solutions/ch08/ex3_matmul_tiled.cpp.
//   v3  register blocking: a 256-thread block computes a 64x64 tile of c, each thread
//       4x4 outputs held in registers; per step of 8 along K, a thread reads 4 values
//       of a and 4 of b from shared memory and does 16 multiply-adds with them.
// Every version handles any M, N, K: loads outside the matrices read 0, stores outside
// are skipped.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

// [snippet: matmul-naive]
__global__ void matmul_naive(Span<const float> a, Span<const float> b, Span<float> c,
                             int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x +
                  threadIdx.x;  // consecutive threads: consecutive columns
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += a[std::int64_t{row} * K + k] * b[std::int64_t{k} * N + col];
  c[std::int64_t{row} * N + col] = acc;
}
// [end]

// A block's tile of c (kBM x kBN), the step along K (kBK), and each thread's outputs
// (kTM x kTN): 16 x 16 threads, 4 x 4 outputs each.
constexpr int kBM = 64, kBN = 64, kBK = 8, kTM = 4, kTN = 4;

__global__ void matmul_register_blocked(Span<const float> a, Span<const float> b,
                                        Span<float> c, int M, int N, int K) {
  __shared__ SharedArray<float, kBK, kBM> as;  // as(k, i): a's tile, transposed
  __shared__ SharedArray<float, kBK, kBN> bs;  // bs(k, j)
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  float acc[kTM][kTN] = {};
  for (int k0 = 0; k0 < K; k0 += kBK) {
    // 512 elements of each tile, 2 per thread.
    for (int e = tid; e < kBM * kBK; e += 256) {
      const int i = e / kBK, k = e % kBK;  // a: 8 consecutive k of one row
      const int r = row0 + i, kk = k0 + k;
      as(k, i) = (r < M && kk < K) ? a[std::int64_t{r} * K + kk] : 0.0f;
      const int kb = e / kBN, j = e % kBN;  // b: 64 consecutive columns of one row
      const int kr = k0 + kb, cc = col0 + j;
      bs(kb, j) = (kr < K && cc < N) ? b[std::int64_t{kr} * N + cc] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < kBK; ++k) {
      float ra[kTM], rb[kTN];
      // Thread (tx, ty) owns rows ty + 16 i and columns tx + 16 j: neighbouring threads
      // read neighbouring shared-memory words (no bank conflicts) and write
      // neighbouring columns.
      for (int i = 0; i < kTM; ++i) ra[i] = as(k, ty + 16 * i);
      for (int j = 0; j < kTN; ++j) rb[j] = bs(k, tx + 16 * j);
      for (int i = 0; i < kTM; ++i)
        for (int j = 0; j < kTN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < kTM; ++i)
    for (int j = 0; j < kTN; ++j) {
      const int r = row0 + ty + 16 * i, cc = col0 + tx + 16 * j;
      if (r < M && cc < N) c[std::int64_t{r} * N + cc] = acc[i][j];
    }
}

namespace {
unsigned blocks_for(int n, int per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}
}  // namespace

#define KINDLING_MATMUL_SPANS                         \
  Span<const float>(a, std::int64_t{M} * K, "a"),     \
      Span<const float>(b, std::int64_t{K} * N, "b"), \
      Span<float>(c, std::int64_t{M} * N, "c"), M, N, K

void matmul_v1(const float* a, const float* b, float* c, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  KD_LAUNCH(matmul_naive, dim3(blocks_for(N, 16), blocks_for(M, 16)), dim3(16, 16),
            KINDLING_MATMUL_SPANS);
}

void matmul_v3(const float* a, const float* b, float* c, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  KD_LAUNCH(matmul_register_blocked, dim3(blocks_for(N, kBN), blocks_for(M, kBM)),
            dim3(16, 16), KINDLING_MATMUL_SPANS);
}
#undef KINDLING_MATMUL_SPANS

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
