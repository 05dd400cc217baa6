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

// ReLU and its gradient in 16 bits (a 16-bit value's max with 0 is exact: no rounding), and the
// column sum of a 16-bit matrix accumulated in float32, rounded once (a Linear bias's gradient
// under autocast, as PyTorch's half sum accumulates in float32).
template <class T>
__global__ void relu16(Span<const T> x, Span<T> out) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < x.size();
       i += step) {
    const float v = to_float(x[i]);
    out[i] = v < 0.0f ? from_float<T>(0.0f) : x[i];  // NaN passes, as on the CPU
  }
}

template <class T>
__global__ void relu_backward16(Span<const T> grad, Span<const T> x, Span<T> dx) {
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < x.size();
       i += step)
    dx[i] = to_float(x[i]) <= 0.0f ? from_float<T>(0.0f) : grad[i];  // NaN passes, as on the CPU
}

template <class T>
__global__ void column_sum16(Span<const T> x, Span<T> out, int rows, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float acc = 0.0f;
  for (int i = 0; i < rows; ++i) acc += to_float(x[static_cast<std::int64_t>(i) * cols + j]);
  out[j] = from_float<T>(acc);
}

namespace {

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

template <class T, class H>
void launch_relu16(const H* x, H* out, std::int64_t n) {
  if (n == 0) return;
  KD_LAUNCH(relu16<T>, dim3(grid_stride_blocks(n)), dim3(256),
            Span<const T>(as_kernel<T>(x), n, "x"), Span<T>(as_kernel<T>(out), n, "out"));
}

template <class T, class H>
void launch_relu_backward16(const H* grad, const H* x, H* dx, std::int64_t n) {
  if (n == 0) return;
  KD_LAUNCH(relu_backward16<T>, dim3(grid_stride_blocks(n)), dim3(256),
            Span<const T>(as_kernel<T>(grad), n, "grad"), Span<const T>(as_kernel<T>(x), n, "x"),
            Span<T>(as_kernel<T>(dx), n, "dx"));
}

template <class T, class H>
void launch_column_sum16(const H* x, H* out, int rows, int cols) {
  if (cols == 0) return;
  const unsigned blocks = static_cast<unsigned>((cols + 127) / 128);
  KD_LAUNCH(column_sum16<T>, dim3(blocks), dim3(128),
            Span<const T>(as_kernel<T>(x), std::int64_t{rows} * cols, "x"),
            Span<T>(as_kernel<T>(out), cols, "out"), rows, cols);
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

void relu_half(const Half* x, Half* out, std::int64_t n) { launch_relu16<half_t>(x, out, n); }
void relu_bfloat16(const BFloat16* x, BFloat16* out, std::int64_t n) {
  launch_relu16<bfloat16_t>(x, out, n);
}
void relu_backward_half(const Half* grad, const Half* x, Half* dx, std::int64_t n) {
  launch_relu_backward16<half_t>(grad, x, dx, n);
}
void relu_backward_bfloat16(const BFloat16* grad, const BFloat16* x, BFloat16* dx, std::int64_t n) {
  launch_relu_backward16<bfloat16_t>(grad, x, dx, n);
}
void column_sum_half(const Half* x, Half* out, int rows, int cols) {
  launch_column_sum16<half_t>(x, out, rows, cols);
}
void column_sum_bfloat16(const BFloat16* x, BFloat16* out, int rows, int cols) {
  launch_column_sum16<bfloat16_t>(x, out, rows, cols);
}

}  // namespace kindling::cuda::KINDLING_KERNEL_NS
