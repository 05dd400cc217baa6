#pragma once
// Internal: the float32 and float64 GEMM every matrix product of the library goes through (matmul,
// Linear, the convolutions' im2col products). Row-major, like cblas:
//   C[M, N] = alpha · op(A)[M, K] · op(B)[K, N] + beta · C,   op = transpose when the flag is set.
// Which library runs it is chosen per shape by measurement (gemm.cpp); the threads follow
// kindling/tensor/threads.hpp.
#include <cstdint>
#include <string>

#include "kindling/tensor/half.hpp"

namespace kindling::detail {

void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
          std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc);
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
          std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc);

/// The 16-bit products (bf16_gemm.cpp): C[M, N] = op(A) · op(B) (+ bias) with 16-bit A, B, C and
/// bias and float32 accumulation, each element rounded once (to nearest, ties to even) at the end.
/// `bias`, when not null, holds N values added to every row before that rounding: addmm's bias,
/// rounded once with the product as PyTorch's CPU bfloat16 addmm does (a separate add would
/// round twice). bfloat16 runs on oneDNN where this CPU has bfloat16 instructions; every other
/// case (float16, a CPU without them) widens the operands to float32 -- exactly -- and runs the
/// float32 GEMM.
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const BFloat16* a,
          std::int64_t lda, const BFloat16* b, std::int64_t ldb, BFloat16* c, std::int64_t ldc,
          const BFloat16* bias = nullptr);
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const Half* a,
          std::int64_t lda, const Half* b, std::int64_t ldb, Half* c, std::int64_t ldc, const Half* bias = nullptr);

/// The threads one product of `macs` multiply-adds gets (gemm.cpp's policy), already applied to
/// OpenMP's count for the calling thread when `for_openmp`.
int gemm_threads(double macs, bool for_openmp);

}  // namespace kindling::detail
