#pragma once
// Internal: one GEMM entry point for float and double, row-major: the library's (tensor/gemm.cpp, which
// picks oneDNN or OpenBLAS per shape and pins the threads).
#include "tensor/gemm.hpp"

namespace kindling::nn::detail {

/// C[M, N] = alpha · op(A) · op(B) + beta · C, row-major, op = transpose when the flag is set.
template <class T>
inline void gemm(bool trans_a, bool trans_b, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb,
                 T beta, T* c, int ldc) {
  kindling::detail::gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace kindling::nn::detail
