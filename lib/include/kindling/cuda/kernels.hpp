#pragma once
/// @file
/// The chapter's kernels, as the host calls them. Each is declared twice with the same signature:
/// in `kindling::cuda::emulated` (run on the kernel emulator, pointers are host memory) and in
/// `kindling::cuda::gpu` (compiled by nvcc, pointers are device memory; present only in a build
/// with CUDA). One source, `lib/src/cuda/kernels/<name>.cpp`, defines both.
///
/// Shapes are row-major: `a: [M, K]` is M rows of K floats.
#include <cstdint>

#include "kindling/tensor/half.hpp"

namespace kindling::cuda {

/// At most this many dimensions for the strided elementwise kernel.
inline constexpr int kMaxKernelDims = 8;

/// The layout of a binary elementwise op over a broadcast shape: the output is contiguous with
/// `sizes`; element `idx` of the output reads `a[a_offset + sum(idx[d] * a_strides[d])]` (stride 0
/// along a broadcast dimension), likewise for `b`.
struct BinaryLayout {
  int ndim = 0;
  std::int64_t sizes[kMaxKernelDims] = {};
  std::int64_t a_strides[kMaxKernelDims] = {};
  std::int64_t b_strides[kMaxKernelDims] = {};
  std::int64_t a_offset = 0, b_offset = 0;
};

enum class BinaryOp : int { Add, Sub, Mul, Div };

/// Adam's hyper-parameters for one fused step (bias corrections computed by the host).
struct AdamStep {
  float lr, beta1, beta2, eps, weight_decay;
  float bias_correction1;  ///< 1 - beta1^step
  float bias_correction2;  ///< 1 - beta2^step
};

#define KINDLING_DECLARE_KERNELS                                                                  \
  /* out[i] = a[...] op b[...] over the broadcast layout; a_len/b_len: elements a/b may be read */ \
  void binary(BinaryOp op, const float* a, std::int64_t a_len, const float* b, std::int64_t b_len, \
              float* out, std::int64_t n, const BinaryLayout& layout);                            \
  /* *out += sum(x[0..n)); v1: a tree in shared memory, v2: warp shuffles */                      \
  void sum_v1(const float* x, std::int64_t n, float* out);                                        \
  void sum_v2(const float* x, std::int64_t n, float* out);                                        \
  /* out[r, :] = softmax(x[r, :]) for x: [rows, cols] */                                          \
  void softmax_rows(const float* x, float* out, int rows, int cols);                              \
  /* loss[r] = logsumexp(logits[r, :]) - logits[r, target[r]]; targets checked in [0, classes) */  \
  void cross_entropy_rows(const float* logits, const std::int64_t* target, float* loss, int rows,  \
                          int classes);                                                           \
  /* out[i] = max(x[i], 0); dx[i] = x[i] > 0 ? grad[i] : 0 (ReLU and its gradient) */          \
  void relu(const float* x, float* out, std::int64_t n);                                          \
  void relu_backward(const float* grad, const float* x, float* dx, std::int64_t n);               \
  /* out[j] = sum_i x[i, j] for x: [rows, cols] (a Linear bias's gradient) */                     \
  void column_sum(const float* x, float* out, int rows, int cols);                                \
  /* dlogits[r, c] = (softmax(logits[r, :])[c] - [c == target[r]]) * grad[0] / rows (mean loss) */ \
  void cross_entropy_backward_rows(const float* logits, const std::int64_t* target,              \
                                   const float* grad, float* dlogits, int rows, int classes);    \
  /* out[0..n) = value */                                                                         \
  void fill(float* out, std::int64_t n, float value);                                             \
  /* c = a @ b, a: [M, K], b: [K, N], c: [M, N]: naive, shared-memory tiles, register blocking */ \
  void matmul_v1(const float* a, const float* b, float* c, int M, int N, int K);                  \
  void matmul_v2(const float* a, const float* b, float* c, int M, int N, int K);                  \
  void matmul_v3(const float* a, const float* b, float* c, int M, int N, int K);                  \
  /* one Adam step over n parameters, updating param, exp_avg, exp_avg_sq in place */             \
  void adam_step(float* param, const float* grad, float* exp_avg, float* exp_avg_sq,             \
                 std::int64_t n, const AdamStep& h);                                             \
  /* 16-bit versions for autocast (chapter 6): stored in float16 / bfloat16, computed in float32, */\
  /* each result rounded once; the matmul accumulates in float32 (shared-memory tiles, as v2) */   \
  void binary_half(BinaryOp op, const Half* a, std::int64_t a_len, const Half* b,                 \
                   std::int64_t b_len, Half* out, std::int64_t n, const BinaryLayout& layout);    \
  void binary_bfloat16(BinaryOp op, const BFloat16* a, std::int64_t a_len, const BFloat16* b,     \
                       std::int64_t b_len, BFloat16* out, std::int64_t n,                         \
                       const BinaryLayout& layout);                                               \
  void matmul_half(const Half* a, const Half* b, Half* c, int M, int N, int K);                   \
  void matmul_bfloat16(const BFloat16* a, const BFloat16* b, BFloat16* c, int M, int N, int K);   \
  void relu_half(const Half* x, Half* out, std::int64_t n);                                       \
  void relu_bfloat16(const BFloat16* x, BFloat16* out, std::int64_t n);                           \
  void relu_backward_half(const Half* grad, const Half* x, Half* dx, std::int64_t n);             \
  void relu_backward_bfloat16(const BFloat16* grad, const BFloat16* x, BFloat16* dx,              \
                              std::int64_t n);                                                    \
  void column_sum_half(const Half* x, Half* out, int rows, int cols);                             \
  void column_sum_bfloat16(const BFloat16* x, BFloat16* out, int rows, int cols);                 \
  /* out[i] = x[i] converted between float32 and float16 / bfloat16 (nearest, ties to even) */   \
  void cast_float_to_half(const float* x, Half* out, std::int64_t n);                             \
  void cast_half_to_float(const Half* x, float* out, std::int64_t n);                             \
  void cast_float_to_bfloat16(const float* x, BFloat16* out, std::int64_t n);                     \
  void cast_bfloat16_to_float(const BFloat16* x, float* out, std::int64_t n);                     \
  /* GradScaler: grad[i] *= inv_scale in place; *found_inf = 1 if any grad[i] is inf or NaN */   \
  void unscale_and_check(float* grad, std::int64_t n, float inv_scale, float* found_inf);

namespace emulated {
KINDLING_DECLARE_KERNELS
}  // namespace emulated
namespace gpu {
KINDLING_DECLARE_KERNELS
}  // namespace gpu
#undef KINDLING_DECLARE_KERNELS

}  // namespace kindling::cuda
