// 16-bit versions of the elementwise kernel and of the tiled matrix product, for chapter 6's
// autocast on a CUDA device. Values are stored in float16 or bfloat16 (half the bytes to move,
// which is what limits an elementwise kernel), and computed in float32: each input is converted
// (to_float), the result is rounded once to the storage type (from_float: nearest, ties to even),
// exactly as PyTorch's kernels and the CPU amp layer do, so an elementwise result matches the CPU's
// bit for bit. The matmul loads 16-bit tiles into float32 shared memory and accumulates in float32
// (cuBLAS's default for half inputs), rounding each element of c once at the end.
#include "kindling/cuda/kernel.hpp"
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::KINDLING_KERNEL_NS {

__device__ __forceinline__ float apply_op16(BinaryOp op, float x, float y) {
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

template <class T>
__global__ void binary16_strided(BinaryOp op, Span<const T> a, Span<const T> b, Span<T> out,
                                 BinaryLayout L) {
  const std::int64_t n = out.size();
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += step) {
    std::int64_t rest = i, ia = L.a_offset, ib = L.b_offset;
    for (int d = L.ndim - 1; d >= 0; --d) {
      const std::int64_t idx = rest % L.sizes[d];
      rest /= L.sizes[d];
      ia += idx * L.a_strides[d];
      ib += idx * L.b_strides[d];
    }
    // Load 16 bits, compute in float32, round once on the way out.
    out[i] = from_float<T>(apply_op16(op, to_float(a[ia]), to_float(b[ib])));
  }
}

constexpr int kTile16 = 16;

template <class T>
__global__ void matmul16_tiled(Span<const T> a, Span<const T> b, Span<T> c, int M, int N,
                               int K) {
  __shared__ SharedArray<float, kTile16, kTile16> as;  // float32 tiles: converted once
  __shared__ SharedArray<float, kTile16, kTile16> bs;
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * kTile16 + ty, col = blockIdx.x * kTile16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTile16) {
    as(ty, tx) = (row < M && k0 + tx < K) ? to_float(a[std::int64_t{row} * K + k0 + tx]) : 0.0f;
    bs(ty, tx) = (k0 + ty < K && col < N) ? to_float(b[std::int64_t{k0 + ty} * N + col]) : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile16; ++k) acc += as(ty, k) * bs(k, tx);
    __syncthreads();
  }
  if (row < M && col < N) c[std::int64_t{row} * N + col] = from_float<T>(acc);
}

namespace {

// The host's Half / BFloat16 and the kernel's element type have the same 16 bits.
template <class K, class H>
const K* as_kernel(const H* p) {
  static_assert(sizeof(K) == sizeof(H));
  return reinterpret_cast<const K*>(p);
}
template <class K, class H>
K* as_kernel(H* p) {
  static_assert(sizeof(K) == sizeof(H));
  return reinterpret_cast<K*>(p);
}

template <class T, class H>
void launch_binary16(BinaryOp op, const H* a, std::int64_t a_len, const H* b, std::int64_t b_len,
                     H* out, std::int64_t n, const BinaryLayout& layout) {
  if (n == 0) return;
  const int threads = 256;
  const std::int64_t blocks = (n + threads - 1) / threads;
  const unsigned grid = static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
  KD_LAUNCH(binary16_strided<T>, dim3(grid), dim3(threads), op,
            Span<const T>(as_kernel<T>(a), a_len, "a"), Span<const T>(as_kernel<T>(b), b_len, "b"),
            Span<T>(as_kernel<T>(out), n, "out"), layout);
}

template <class T, class H>
void launch_matmul16(const H* a, const H* b, H* c, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  const unsigned gx = static_cast<unsigned>((N + kTile16 - 1) / kTile16);
  const unsigned gy = static_cast<unsigned>((M + kTile16 - 1) / kTile16);
  KD_LAUNCH(matmul16_tiled<T>, dim3(gx, gy), dim3(kTile16, kTile16),
            Span<const T>(as_kernel<T>(a), std::int64_t{M} * K, "a"),
            Span<const T>(as_kernel<T>(b), std::int64_t{K} * N, "b"),
            Span<T>(as_kernel<T>(c), std::int64_t{M} * N, "c"), M, N, K);
}

}  // namespace

void binary_half(BinaryOp op, const Half* a, std::int64_t a_len, const Half* b,
                 std::int64_t b_len, Half* out, std::int64_t n, const BinaryLayout& layout) {
  launch_binary16<half_t>(op, a, a_len, b, b_len, out, n, layout);
}

void binary_bfloat16(BinaryOp op, const BFloat16* a, std::int64_t a_len, const BFloat16* b,
                     std::int64_t b_len, BFloat16* out, std::int64_t n,
                     const BinaryLayout& layout) {
  launch_binary16<bfloat16_t>(op, a, a_len, b, b_len, out, n, layout);
}

void matmul_half(const Half* a, const Half* b, Half* c, int M, int N, int K) {
  launch_matmul16<half_t>(a, b, c, M, N, K);
}

void matmul_bfloat16(const BFloat16* a, const BFloat16* b, BFloat16* c, int M, int N, int K) {
  launch_matmul16<bfloat16_t>(a, b, c, M, N, K);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
