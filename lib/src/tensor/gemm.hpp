#pragma once
// Internal: the float32 and float64 GEMM every matrix product of the library goes through (matmul,
// Linear, the convolutions' im2col products). Row-major, like cblas:
//   C[M, N] = alpha · op(A)[M, K] · op(B)[K, N] + beta · C,   op = transpose when the flag is set.
// Which library runs it is chosen per shape by measurement (gemm.cpp); the threads follow
// kindling/tensor/threads.hpp.
#include <cstdint>

namespace kindling::detail {

void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
          std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc);
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
          std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc);

}  // namespace kindling::detail
