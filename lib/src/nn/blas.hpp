#pragma once
// Internal: one GEMM entry point for float and double (cblas_sgemm / cblas_dgemm), row-major.
#include <cblas.h>

namespace kindling::nn::detail {

/// C[M, N] = alpha · op(A) · op(B) + beta · C, row-major, op = transpose when the flag is set.
inline void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k,
              alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void gemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k,
              alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace kindling::nn::detail
