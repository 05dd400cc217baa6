// ch10.ex1 — onnx::detail::gemm, ONNX's Gemm: against PyTorch's matmul, transposes, scales and
// broadcast biases, and autograd's gradients through it.
#include "ch10_grading.hpp"

using namespace ch10_grading;
namespace onnx_detail = kd::onnx::detail;

TEST_CASE("Gemm: a Linear as exporters write it (trans_b, a bias of [N])", "[ch10][ex1][pts=5]") {
  const kd::Tensor A = grading::input("A"), B = grading::input("B"), C = grading::input("C");
  grading::expect("gemm(A, B, C, 1, 1, trans_b)", onnx_detail::gemm(A, B, C, 1.0, 1.0, false, true));
}

TEST_CASE("Gemm: trans_a, alpha, beta, every bias shape and none", "[ch10][ex1][pts=5]") {
  const kd::Tensor A = grading::input("A"), B = grading::input("B");
  const kd::Tensor ab = grading::input("alpha_beta");
  const double alpha = ab[0].item<double>(), beta = ab[1].item<double>();
  for (const char* c : {"C_scalar", "C_row", "C_col", "C_full"})
    grading::expect(std::string("gemm with ") + c,
                    onnx_detail::gemm(A, B, grading::input(c), alpha, beta, true, false));
  grading::expect("gemm without C", onnx_detail::gemm(A, B, kd::Tensor(), alpha, beta, true, false));
  grading::expect("gemm, both transposed",
                  onnx_detail::gemm(A.t().contiguous().t(), grading::input("Bt"), grading::input("C_row"),
                                    alpha, beta, true, true));
}

TEST_CASE("Gemm: gradients of A, B and C", "[ch10][ex1][pts=5]") {
  kd::Tensor A = grading::input("A").requires_grad_(true);
  kd::Tensor B = grading::input("B").requires_grad_(true);
  kd::Tensor C = grading::input("C").requires_grad_(true);
  const kd::Tensor y = onnx_detail::gemm(A, B, C, 0.5, 2.0, false, true);
  y.backward(grading::input("g"));
  grading::expect("output", y.detach());
  grading::expect("A.grad", A.grad());
  grading::expect("B.grad", B.grad());
  grading::expect("C.grad", C.grad());
}
