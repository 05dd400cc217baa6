// ch10.ex1 — ONNX's Gemm: the node every exported Linear becomes (with trans_b = 1: ONNX keeps
// PyTorch's [out, in] weight and transposes it in the node).
//
// onnx::detail::gemm (kindling/jit/pieces.hpp): the importer (lib/src/jit/onnx_ops.cpp) reads the
// node's attributes, checks that A and B are matrices whose inner sizes agree, calls it, and checks
// that it returned [M, N].
#include "kindling/jit/pieces.hpp"

#include "kindling/tensor/ops.hpp"

namespace kindling::onnx::detail {

Tensor gemm(const Tensor& A, const Tensor& B, const Tensor& C, double alpha, double beta,
            bool trans_a, bool trans_b) {
  // BEGIN SOLUTION ex1: transpose as asked (a view), multiply, scale, add the scaled bias
  const Tensor a = trans_a ? A.t() : A;  // [M, K]
  const Tensor b = trans_b ? B.t() : B;  // [K, N]
  Tensor y = matmul(a, b);               // [M, N]
  if (alpha != 1.0) y = y * alpha;
  if (C.defined()) y = y + (beta == 1.0 ? C : C * beta);  // C broadcasts to [M, N]
  return y;
  // END SOLUTION
}

}  // namespace kindling::onnx::detail
