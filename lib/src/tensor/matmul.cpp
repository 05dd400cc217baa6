// Matrix products: mm (2-D × 2-D) and matmul (torch.matmul's rules for every rank), on BLAS GEMM.
//
// The point of this file: a transposed view costs nothing. BLAS reads a row-major matrix given its
// leading dimension (the step between rows), and can read it *transposed* for free. A Kindling matrix
// of shape [rows, cols] with element strides (rs, cs) is
//   * "as stored"  when cs == 1: row i starts at i * rs          → CblasNoTrans, lda = rs;
//   * "transposed" when rs == 1: it is a row-major [cols, rows]   → CblasTrans,   lda = cs.
// So `x.matmul(w.t())` hands w's own memory to cblas_sgemm with a transpose flag — no copy. Only a
// matrix whose elements are not laid out in rows or columns (e.g. a stride-2 slice along both dims,
// or an expanded one with stride 0) is copied first.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

/// How BLAS can read a rows×cols matrix with element strides (rs, cs); ok == false means "copy first".
struct BlasLayout {
  bool ok = false;
  bool trans = false;
  std::int64_t ld = 1;
};

BlasLayout blas_layout(std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs) {
  // Strides of size-1 dims never matter, so they do not disqualify a layout.
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<std::int64_t>(1, cols)))
    return {true, false, rows <= 1 ? std::max<std::int64_t>(1, cols) : rs};
  if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<std::int64_t>(1, rows)))
    return {true, true, cols <= 1 ? std::max<std::int64_t>(1, rows) : cs};
  return {};
}

/// One matrix operand: [rows, cols] with element strides (rs, cs) starting at ptr.
struct Mat {
  const char* ptr;
  std::int64_t rows, cols, rs, cs;
};

/// C[M, N] (contiguous) = A[M, K] · B[K, N].
template <class T> void gemm(const Mat& A, const Mat& B, T* C) {
  const std::int64_t M = A.rows, K = A.cols, N = B.cols;
  if (M == 0 || N == 0) return;
  if (K == 0) {  // an empty sum is 0 (do not trust BLAS with k = 0)
    std::fill(C, C + M * N, T(0));
    return;
  }
  const T* a = reinterpret_cast<const T*>(A.ptr);
  const T* b = reinterpret_cast<const T*>(B.ptr);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const BlasLayout la = blas_layout(M, K, A.rs, A.cs), lb = blas_layout(K, N, B.rs, B.cs);
    const auto ta = la.trans ? CblasTrans : CblasNoTrans, tb = lb.trans ? CblasTrans : CblasNoTrans;
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, a, la.ld, b, lb.ld, 0.0f, C, N);
    else
      cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, a, la.ld, b, lb.ld, 0.0, C, N);
  } else {
    // Integer matmul (BLAS has none): the textbook i-k-j loop, reading any strides.
    std::fill(C, C + M * N, T(0));
    for (std::int64_t i = 0; i < M; ++i)
      for (std::int64_t k = 0; k < K; ++k) {
        const T aik = a[i * A.rs + k * A.cs];
        for (std::int64_t j = 0; j < N; ++j) C[i * N + j] = static_cast<T>(C[i * N + j] + aik * b[k * B.rs + j * B.cs]);
      }
  }
}

std::string dims_word(const Tensor& t) { return std::to_string(t.dim()) + "-D"; }

void check_operands(const Tensor& a, const Tensor& b, const char* op) {
  check_cpu(a, op);
  check_cpu(b, op);
  if (a.dim() == 0 || b.dim() == 0) {
    throw ShapeError(std::string(op) + ": both arguments need to be at least 1-D, but they are " + dims_word(a) +
                     " and " + dims_word(b) + " (shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) +
                     "). Hint: to scale by a 0-d tensor use `*`.");
  }
  if (a.dtype() != b.dtype()) {
    throw DTypeError(std::string(op) + ": expected both tensors to have the same dtype, but got " + dname(a.dtype()) +
                     " and " + dname(b.dtype()) + " (shapes " + shape_str(a.shape()) + " and " +
                     shape_str(b.shape()) + "). Hint: convert one of them, e.g. b.to(a.dtype()).");
  }
  if (a.dtype() == kBool) {
    throw DTypeError(std::string(op) + ": bool tensors cannot be multiplied as matrices. Hint: convert first, "
                     "e.g. .to(kd::kFloat32).");
  }
}

/// torch.matmul, recorded under `op` ("matmul" or "mm").
Tensor matmul_impl(const Tensor& a_in, const Tensor& b_in, const char* op) {
  check_operands(a_in, b_in, op);
  Tensor a = a_in, b = b_in;
  const bool a1 = a.dim() == 1, b1 = b.dim() == 1;
  if (a1 && b1 && a.size(0) != b.size(0)) {
    throw ShapeError(std::string(op) + ": 1-D tensors of sizes " + std::to_string(a.size(0)) + " and " +
                     std::to_string(b.size(0)) + " cannot be multiplied: the dot product needs equal sizes.");
  }
  // Both operands as stacks of matrices: a [..., M, K], b [..., K, N]. A 1-D a is a single row
  // [1, K]; a 1-D b a single column [K, 1]; those extra dims are dropped from the result.
  auto as_matrices = [](const Tensor& t, bool is_vector, bool row) {
    std::pair<Shape, Strides> m{t.shape(), t.strides()};
    if (is_vector) {
      if (row) m = {{1, t.size(0)}, {0, t.stride(0)}};
      else m = {{t.size(0), 1}, {t.stride(0), 0}};
    }
    return m;
  };
  // Named references, not structured bindings: the dispatch lambda below captures them, and C++20
  // lets a lambda capture a structured binding only since P1091 (clang 16); clang 14 refuses it.
  auto a_mat = as_matrices(a, a1, true), b_mat = as_matrices(b, b1, false);
  Shape& ashape = a_mat.first;
  Strides& astr = a_mat.second;
  Shape& bshape = b_mat.first;
  Strides& bstr = b_mat.second;
  const std::int64_t M = ashape.end()[-2], K = ashape.end()[-1], N = bshape.end()[-1];
  if (bshape.end()[-2] != K) {
    std::string msg = std::string(op) + ": shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) +
                      " cannot be multiplied (" + std::to_string(K) + " != " + std::to_string(bshape.end()[-2]) + ").";
    if (!b1 && b.size(-1) == K) msg += " Did you mean w.t()?";
    else msg += " Hint: the last dim of the first must equal the second-to-last dim of the second.";
    throw ShapeError(msg);
  }
  const Shape abatch(ashape.begin(), ashape.end() - 2), bbatch(bshape.begin(), bshape.end() - 2);
  const Shape batch = broadcast_shapes(abatch, bbatch, op);

  // Copy an operand only when BLAS cannot read its matrices in place.
  const bool blas = is_floating_point(a.dtype());
  if (blas && !blas_layout(M, K, astr.end()[-2], astr.end()[-1]).ok) {
    a = contiguous_copy(a);
    a_mat = as_matrices(a, a1, true);
  }
  if (blas && !blas_layout(K, N, bstr.end()[-2], bstr.end()[-1]).ok) {
    b = contiguous_copy(b);
    b_mat = as_matrices(b, b1, false);
  }

  Shape out_shape = batch;
  if (!a1) out_shape.push_back(M);
  if (!b1) out_shape.push_back(N);
  Tensor out = make_tensor(out_shape, a.dtype());  // memory order = [batch..., M, N]
  const std::int64_t nbatch = numel_of(batch);
  const auto es = static_cast<std::int64_t>(a.element_size());

  // A stack of matrices times one matrix ([B, T, K] · [K, N], a Linear on a sequence): if a's batch
  // dims and its row dim merge into one stride, it is one big [B*T, K] matrix — a single GEMM.
  // (Size-1 dims are skipped: their strides are arbitrary and never used.)
  bool fold = bbatch.empty() && !abatch.empty();
  std::int64_t fold_rs = astr.end()[-2];
  if (fold) {
    std::vector<std::size_t> rowdims;  // batch dims and M, size > 1
    for (std::size_t i = 0; i + 1 < ashape.size(); ++i)
      if (ashape[i] != 1) rowdims.push_back(i);
    for (std::size_t j = 0; fold && j + 1 < rowdims.size(); ++j)
      fold = astr[rowdims[j]] == astr[rowdims[j + 1]] * ashape[rowdims[j + 1]];
    if (!rowdims.empty()) fold_rs = astr[rowdims.back()];
    fold = fold && (!blas || blas_layout(nbatch * M, K, fold_rs, astr.end()[-1]).ok);
  }

  dispatch(a.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      T* c = out.data_ptr<T>();
      const char* ap = static_cast<const char*>(a.raw_data_ptr());
      const char* bp = static_cast<const char*>(b.raw_data_ptr());
      if (fold) {
        gemm<T>({ap, nbatch * M, K, fold_rs, astr.end()[-1]}, {bp, K, N, bstr.end()[-2], bstr.end()[-1]}, c);
        return;
      }
      // Element strides of each operand over the broadcast batch dims (0 where it is broadcast).
      const std::size_t nb = batch.size();
      std::vector<std::int64_t> sa(nb, 0), sb(nb, 0);
      for (std::size_t i = 0; i < nb; ++i) {
        const std::size_t ia = i + abatch.size() - nb, ib = i + bbatch.size() - nb;  // wrap when missing
        if (i >= nb - abatch.size() && ashape[ia] != 1) sa[i] = astr[ia];
        if (i >= nb - bbatch.size() && bshape[ib] != 1) sb[i] = bstr[ib];
      }
      std::vector<std::int64_t> idx(nb, 0);
      std::int64_t oa = 0, ob = 0;
      for (std::int64_t k = 0; k < nbatch; ++k) {
        gemm<T>({ap + oa * es, M, K, astr.end()[-2], astr.end()[-1]},
                {bp + ob * es, K, N, bstr.end()[-2], bstr.end()[-1]}, c + k * M * N);
        for (std::size_t d = nb; d-- > 0;) {  // odometer over the batch dims
          oa += sa[d];
          ob += sb[d];
          if (++idx[d] < batch[d]) break;
          oa -= sa[d] * batch[d];
          ob -= sb[d] * batch[d];
          idx[d] = 0;
        }
      }
    }
  });
  return record({.op = op, .inputs = {a_in, b_in}}, out);
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) { return matmul_impl(a, b, "matmul"); }

Tensor mm(const Tensor& a, const Tensor& b) {
  check_defined(a, "mm");
  check_defined(b, "mm");
  if (a.dim() != 2 || b.dim() != 2) {
    throw ShapeError("mm: expected two 2-D tensors (matrices), but got shapes " + shape_str(a.shape()) + " and " +
                     shape_str(b.shape()) + ". Hint: use matmul for vectors and batches of matrices.");
  }
  return matmul_impl(a, b, "mm");
}

Tensor Tensor::matmul(const Tensor& other) const { return kindling::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return kindling::mm(*this, other); }

}  // namespace kindling
