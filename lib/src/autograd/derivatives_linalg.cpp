// Derivative table, linear algebra.   out = a @ b   ->   da = g @ bᵀ,   db = aᵀ @ g
#include "autograd/function.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

using Grads = std::vector<Tensor>;

// mm: out = a @ b            a: [n, k], b: [k, m], out: [n, m]
// da = g @ bᵀ   [n, m] @ [m, k] = [n, k]        db = aᵀ @ g   [k, n] @ [n, m] = [k, m]
//
// Layout: when an input is column-major (a transposed view, like Linear's weight.t()), its gradient
// is computed transposed so that it comes out in the input's own layout — (gᵀ @ a)ᵀ instead of
// aᵀ @ g. The TBackward0 above it then hands the weight a *contiguous* gradient, and accumulating it
// into .grad is a plain vectorised add instead of a strided transpose (PyTorch's mm_mat2_backward
// does the same).
bool is_column_major(const Tensor& t) { return t.dim() == 2 && t.stride(0) == 1 && t.stride(1) == t.size(0); }

Tensor mm_grad_a(const Tensor& g, const Tensor& a, const Tensor& b) {
  return is_column_major(a) ? b.mm(g.t()).t() : g.mm(b.t());
}
Tensor mm_grad_b(const Tensor& g, const Tensor& a, const Tensor& b) {
  return is_column_major(b) ? g.t().mm(a).t() : a.t().mm(g);
}

Grads mm_backward(const BackwardContext& c) {
  const Tensor& g = c.grad();
  Grads r(2);
  if (c.needs_input_grad(0)) r[0] = mm_grad_a(g, c.input(0), c.input(1));
  if (c.needs_input_grad(1)) r[1] = mm_grad_b(g, c.input(0), c.input(1));
  return r;
}

// matmul: any ranks. Reduce every case to the batched matrix one:
//   a 1-D [k] becomes [1, k] (a row), b 1-D [k] becomes [k, 1] (a column), and g gets the
//   dimension matmul squeezed away back. Then, with batch dims broadcast like elementwise ops,
//   da = g @ bᵀ and db = aᵀ @ g, summed over broadcast batch dims (unbroadcast) and reshaped back.
//   a: [2, 1, n, k], b: [5, k, m] -> out [2, 5, n, m]; da: [2, 5, n, k] -> sum dim 1 -> [2, 1, n, k]
Grads matmul_backward(const BackwardContext& c) {
  const Tensor a = c.input(0), b = c.input(1);
  Tensor g = c.grad();
  if (a.dim() == 2 && b.dim() == 2) {  // the common case (Linear): plain mm, layout-preserving grads
    Grads r(2);
    if (c.needs_input_grad(0)) r[0] = mm_grad_a(g, a, b);
    if (c.needs_input_grad(1)) r[1] = mm_grad_b(g, a, b);
    return r;
  }
  const Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  if (a.dim() == 1) g = g.unsqueeze(g.dim() == 0 ? 0 : g.dim() - (b.dim() == 1 ? 0 : 1));
  if (b.dim() == 1) g = g.unsqueeze(g.dim());
  Grads r(2);
  if (c.needs_input_grad(0)) {
    Tensor da = g.matmul(b2.transpose(-1, -2));
    r[0] = unbroadcast(da, a2.shape()).reshape(a.shape());
  }
  if (c.needs_input_grad(1)) {
    Tensor db = a2.transpose(-1, -2).matmul(g);
    r[1] = unbroadcast(db, b2.shape()).reshape(b.shape());
  }
  return r;
}

// PyTorch builds matmul out of several ops (unsqueeze, expand, bmm, _unsafe_view, ...), so its top
// node depends on the ranks; Kindling records one node and names it after the product computed.
const char* matmul_name(const detail::OpRecord& r, const std::vector<Tensor>&) {
  const auto da = r.inputs[0].dim(), db = r.inputs[1].dim();
  if (da == 1 && db == 1) return "DotBackward0";
  if (da == 2 && db == 1) return "MvBackward0";
  if (da <= 2 && db <= 2) return "MmBackward0";
  return "BmmBackward0";
}

const Derivative kRows[] = {
    {"mm", "MmBackward0", mm_backward, kSaveInput0 | kSaveInput1},
    {"matmul", "MmBackward0", matmul_backward, kSaveInput0 | kSaveInput1, matmul_name},
};

}  // namespace

DerivativeTable linalg_derivatives() { return {kRows, std::size(kRows)}; }

}  // namespace kindling::autograd
