// Matrix products: mm (2-D × 2-D) and matmul (torch.matmul's rules for every rank), on BLAS GEMM.
//
// The point of this file: a transposed view costs nothing. BLAS reads a row-major matrix given its
// leading dimension (the step between rows), and can read it *transposed* for free. A Kindling matrix
// of shape [rows, cols] with element strides (rs, cs) is
//   * "as stored"  when cs == 1: row i starts at i * rs          → CblasNoTrans, lda = rs;
//   * "transposed" when rs == 1: it is a row-major [cols, rows]   → CblasTrans,   lda = cs.
// So `x.matmul(w.t())` hands w's own memory to the GEMM (gemm.cpp) with a transpose flag — no copy. Only a
// matrix whose elements are not laid out in rows or columns (e.g. a stride-2 slice along both dims,
// or an expanded one with stride 0) is copied first.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "device_ops.hpp"
#include "dispatch.hpp"
#include "gemm.hpp"
#include "internal.hpp"
#include "kindling/tensor/autocast_mode.hpp"
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

/// C[M, N] (contiguous) = A[M, K] · B[K, N] (+ bias[N] on every row: 16-bit products only, where
/// it is rounded together with the product).
template <class T> void gemm(const Mat& A, const Mat& B, T* C, const T* bias = nullptr) {
  const std::int64_t M = A.rows, K = A.cols, N = B.cols;
  if (M == 0 || N == 0) return;
  if (K == 0) {  // an empty sum is 0 (do not trust BLAS with k = 0)
    for (std::int64_t i = 0; i < M; ++i) {
      if (bias) std::copy(bias, bias + N, C + i * N);
      else std::fill(C + i * N, C + (i + 1) * N, T(0));
    }
    return;
  }
  const T* a = reinterpret_cast<const T*>(A.ptr);
  const T* b = reinterpret_cast<const T*>(B.ptr);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const BlasLayout la = blas_layout(M, K, A.rs, A.cs), lb = blas_layout(K, N, B.rs, B.cs);
    // gemm.cpp picks the library (oneDNN or OpenBLAS) and the threads for this shape.
    detail::gemm(la.trans, lb.trans, M, N, K, T(1), a, la.ld, b, lb.ld, T(0), C, N);
  } else if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) {
    // 16-bit operands: float32 accumulation, one rounding per element -- what PyTorch's CPU
    // bfloat16 GEMM computes (bf16_gemm.cpp: oneDNN where the CPU has bfloat16 instructions).
    const BlasLayout la = blas_layout(M, K, A.rs, A.cs), lb = blas_layout(K, N, B.rs, B.cs);
    detail::gemm(la.trans, lb.trans, M, N, K, a, la.ld, b, lb.ld, C, N, bias);
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

/// On a device, a float32 (or float16/bfloat16) product of two matrices has a kernel (device_ops.hpp); any other keeps
/// check_cpu's DeviceError. a and b are on the same device.
const DeviceOps* device_product(const Tensor& a, const Tensor& b) {
  const DeviceOps* dev = device_ops(a);
  if (dev && dev->matmul && a.dim() == 2 && b.dim() == 2 && device_float(a.dtype()) && b.dtype() == a.dtype())
    return dev;
  return nullptr;
}

void check_operands(const Tensor& a, const Tensor& b, const char* op) {
  check_same_device(a, b, op);
  if (device_product(a, b)) return;  // product() runs the device's kernel (and checks the sizes)
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

/// The product kernel behind every matrix product here: torch.matmul's rules for any ranks, one GEMM
/// per matrix of the broadcast batch (or a single GEMM when the batch folds into rows). It computes
/// values only; the public functions below record the product for autograd under PyTorch's names.
/// `bias16` (addmm under autocast): a contiguous [N] bias of a 16-bit product of two matrices,
/// added inside the GEMM before its one rounding.
Tensor product(const Tensor& a_in, const Tensor& b_in, const char* op, const Tensor& bias16 = Tensor()) {
  // On a device: a float32 matrix product has a kernel (device_ops.hpp); others keep check_cpu's error.
  check_same_device(a_in, b_in, op);
  if (const DeviceOps* dev = device_product(a_in, b_in)) {
    if (a_in.size(1) != b_in.size(0))
      throw ShapeError(std::string(op) + ": mat1 and mat2 shapes cannot be multiplied (" + shape_str(a_in.shape()) +
                       " and " + shape_str(b_in.shape()) + "). Hint: the inner sizes must match.");
    return dev->matmul(a_in, b_in);
  }
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

  // dispatch_all: the 16-bit floats too (their own GEMM, bf16_gemm.cpp).
  dispatch_all(a.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      T* c = out.data_ptr<T>();
      const char* ap = static_cast<const char*>(a.raw_data_ptr());
      const char* bp = static_cast<const char*>(b.raw_data_ptr());
      if (fold) {
        gemm<T>({ap, nbatch * M, K, fold_rs, astr.end()[-1]}, {bp, K, N, bstr.end()[-2], bstr.end()[-1]}, c);
        return;
      }
      if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) {
        if (bias16.defined()) {  // two matrices (addmm checked it): one GEMM with the bias
          gemm<T>({ap, M, K, astr.end()[-2], astr.end()[-1]}, {bp, K, N, bstr.end()[-2], bstr.end()[-1]}, c,
                  bias16.data_ptr<T>());
          return;
        }
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
  return out;
}

void check_ranks(const Tensor& a, const Tensor& b, std::int64_t ra, std::int64_t rb, const char* op,
                 const char* hint) {
  check_defined(a, op);
  check_defined(b, op);
  if (a.dim() != ra || b.dim() != rb) {
    throw ShapeError(std::string(op) + ": expected a " + std::to_string(ra) + "-D and a " + std::to_string(rb) +
                     "-D tensor, but got shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) +
                     ". Hint: " + hint);
  }
}

/// A view of `t` with a new shape, recorded as PyTorch's _unsafe_view (the view of a fresh result).
Tensor unsafe_view(const Tensor& t, const Shape& shape) {
  const Tensor c = t.is_contiguous() ? t : t.contiguous();
  return record<"unsafe_view">(make_view(c, shape, contiguous_strides(shape), c.storage_offset()), c,
                               IntArrayRef(shape));
}

/// torch.matmul when autograd is watching: the same composition of primitive ops as PyTorch 1.13's
/// _matmul_impl, so that the graph -- and every node name a learner prints -- is PyTorch's:
///   [3] @ [3]          dot                          DotBackward0
///   [n, k] @ [k]       mv                           MvBackward0
///   [k] @ [k, m]       unsqueeze(0), mm, squeeze_   SqueezeBackward3 <- MmBackward0 <- UnsqueezeBackward0
///   [n, k] @ [k, m]    mm                           MmBackward0
///   [..., n, k] @ [k, m] or [k]: fold the batch into rows, one mm/mv, _unsafe_view back
///   [n, k] or [k] @ [..., k, m]: the same on the transposed problem, transposed back
///   otherwise: expand both batches, reshape to 3-D, bmm, _unsafe_view back
Tensor matmul_recorded(const Tensor& t1, const Tensor& t2) {
  const std::int64_t d1 = t1.dim(), d2 = t2.dim();
  if (d1 == 1 && d2 == 1) return dot(t1, t2);
  if (d1 == 2 && d2 == 1) return mv(t1, t2);
  if (d1 == 1 && d2 == 2) {
    const Tensor r = mm(t1.unsqueeze(0), t2);  // [1, m]
    return record<"squeeze_">(make_view(r, {r.size(1)}, {r.stride(1)}, r.storage_offset()), r, std::int64_t{0});
  }
  if (d1 == 2 && d2 == 2) return mm(t1, t2);
  if (d1 >= 3 && (d2 == 1 || d2 == 2)) {
    Shape out_shape(t1.shape().begin(), t1.shape().end() - 1);
    if (d2 == 2) out_shape.push_back(t2.size(-1));
    // The row count spelled out, not -1: with a contracted size of 0 the tensor has no elements and
    // -1 could be anything (PyTorch's matmul computes it the same way).
    const Tensor folded = t1.reshape({numel_of(Shape(t1.shape().begin(), t1.shape().end() - 1)), t1.size(-1)});
    return unsafe_view(d2 == 1 ? mv(folded, t2) : mm(folded, t2), out_shape);
  }
  if (d2 >= 3 && (d1 == 1 || d1 == 2)) {
    const Tensor res_t = matmul_recorded(t2.transpose(-1, -2), d1 == 2 ? t1.t() : t1);
    return d1 == 1 ? res_t : res_t.transpose(-1, -2).contiguous();
  }
  // Batched: broadcast the batch dims, then one bmm over [batch, n, k] x [batch, k, m].
  const std::int64_t n = d1 > 1 ? t1.size(-2) : 1, k = t1.size(-1);
  const std::int64_t k2 = d2 > 1 ? t2.size(-2) : t2.size(0), m = d2 > 1 ? t2.size(-1) : 1;
  const Shape batch1(t1.shape().begin(), t1.shape().end() - std::min<std::int64_t>(d1, 2));
  const Shape batch2(t2.shape().begin(), t2.shape().end() - std::min<std::int64_t>(d2, 2));
  const Shape batch = broadcast_shapes(batch1, batch2, "matmul");
  const std::int64_t nb = numel_of(batch);
  Shape e1 = batch, e2 = batch;
  e1.insert(e1.end(), {n, k});
  e2.insert(e2.end(), {k2, m});
  const Tensor a3 = (d1 == 1 ? t1.unsqueeze(0) : t1).expand(e1).reshape({nb, n, k});
  const Tensor b3 = (d2 == 1 ? t2.unsqueeze(-1) : t2).expand(e2).reshape({nb, k2, m});
  Shape out_shape = batch;
  if (d1 > 1) out_shape.push_back(n);
  if (d2 > 1) out_shape.push_back(m);
  return unsafe_view(bmm(a3, b3), out_shape);
}

}  // namespace

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  // Under autocast: the autocast dtype (PyTorch's lower-precision list; mv and dot are not on it).
  const Tensor a = autocast_to_lower(a_in), b = autocast_to_lower(b_in);
  if (needs_grad(a, b)) {
    check_operands(a, b, "matmul");
    return matmul_recorded(a, b);
  }
  return product(a, b, "matmul");  // no graph to build: the general kernel, without intermediate views
}

Tensor mm(const Tensor& a_in, const Tensor& b_in) {
  // Under autocast: the autocast dtype (PyTorch's lower-precision list; mv and dot are not on it).
  const Tensor a = autocast_to_lower(a_in), b = autocast_to_lower(b_in);
  check_ranks(a, b, 2, 2, "mm", "use matmul for vectors and batches of matrices.");
  return record<"mm">(product(a, b, "mm"), a, b);
}

Tensor bmm(const Tensor& a_in, const Tensor& b_in) {
  // Under autocast: the autocast dtype (PyTorch's lower-precision list; mv and dot are not on it).
  const Tensor a = autocast_to_lower(a_in), b = autocast_to_lower(b_in);
  check_ranks(a, b, 3, 3, "bmm", "bmm multiplies batches of matrices [B, n, k] x [B, k, m]; use matmul to broadcast.");
  if (a.size(0) != b.size(0)) {
    throw ShapeError("bmm: batch sizes differ: " + shape_str(a.shape()) + " and " + shape_str(b.shape()) +
                     ". Hint: bmm does not broadcast; use matmul.");
  }
  return record<"bmm">(product(a, b, "bmm"), a, b);
}

Tensor mv(const Tensor& a, const Tensor& b) {
  check_ranks(a, b, 2, 1, "mv", "mv multiplies a matrix [n, k] by a vector [k].");
  return record<"mv">(product(a, b, "mv"), a, b);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  check_ranks(a, b, 1, 1, "dot", "dot multiplies two vectors of the same length.");
  return record<"dot">(product(a, b, "dot"), a, b);
}

// outer is not a product kernel: PyTorch computes a.reshape({-1, 1}) * b (its graph reads MulBackward0
// over ReshapeAliasBackward0), and so do we -- broadcasting does the work.
Tensor outer(const Tensor& a, const Tensor& b) {
  check_ranks(a, b, 1, 1, "outer", "outer(a, b) takes two vectors a [n], b [m] and gives [n, m].");
  return a.reshape({-1, 1}) * b;
}

Tensor addmm(const Tensor& bias_in, const Tensor& a_in, const Tensor& b_in, Scalar beta, Scalar alpha) {
  // Under autocast: the autocast dtype (PyTorch's lower-precision list; mv and dot are not on it).
  const Tensor bias = autocast_to_lower(bias_in), a = autocast_to_lower(a_in), b = autocast_to_lower(b_in);
  check_ranks(a, b, 2, 2, "addmm", "addmm(bias, a, b) computes bias + a @ b for matrices a [n, k], b [k, m].");
  check_defined(bias, "addmm");
  // A 16-bit product (Linear under autocast): a bias of one value per column, in the product's
  // dtype, goes into the GEMM and is rounded once with the sums, as in PyTorch's CPU bfloat16
  // addmm -- adding it afterwards would round twice and cost a pass over the result.
  const bool fused = is_reduced_floating_point(a.dtype()) && a.device().is_cpu() && b.device().is_cpu() &&
                     bias.device().is_cpu() && b.dtype() == a.dtype() && bias.dtype() == a.dtype() &&
                     alpha.to_double() == 1.0 && beta.to_double() == 1.0 && bias.numel() == b.size(1) &&
                     a.size(1) == b.size(0) && (bias.dim() == 1 || (bias.dim() == 2 && bias.size(0) == 1));
  Tensor prod = fused ? product(a, b, "addmm", bias.contiguous()) : product(a, b, "addmm");  // [n, m]
  if (fused) return record<"addmm">(prod, bias, a, b, beta, alpha);
  const Shape out_shape = broadcast_shapes(bias.shape(), prod.shape(), "addmm");
  if (out_shape != prod.shape()) {
    throw ShapeError("addmm: bias of shape " + shape_str(bias.shape()) + " does not broadcast to the product's "
                     "shape " + shape_str(prod.shape()) + ". Hint: the bias of a Linear layer has one value per "
                     "output feature, [out_features].");
  }
  if (bias.dtype() != prod.dtype()) {
    throw DTypeError("addmm: bias is " + dname(bias.dtype()) + " but the matrices are " + dname(prod.dtype()) +
                     ". Hint: convert the bias with .to(a.dtype()).");
  }
  // out = beta * bias + alpha * (a @ b), computed into the product's own fresh memory (not recorded:
  // the whole op is recorded once, below).
  {
    const GradModeOff no_grad;
    // On a device (Linear's forward): bias + a @ b through the device's broadcasting add kernel.
    if (device_product(a, b) && alpha.to_double() == 1.0 && beta.to_double() == 1.0) {
      prod = prod + bias;
    } else {
      if (alpha.to_double() != 1.0) prod.mul_(alpha);
      if (beta.to_double() == 1.0) prod.add_(bias);
      else if (beta.to_double() != 0.0) prod.add_(bias, beta);
    }
  }
  return record<"addmm">(prod, bias, a, b, beta, alpha);
}

Tensor Tensor::matmul(const Tensor& other) const { return kindling::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return kindling::mm(*this, other); }

}  // namespace kindling
