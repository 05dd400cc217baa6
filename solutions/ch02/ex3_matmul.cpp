// ch02.ex3 — the backward of matrix products: mm (and addmm: every Linear layer) and bmm (every
// batched matmul).
//
// out = a @ b, a: [n, k], b: [k, m], g = d loss / d out: [n, m]. Each out[i, j] = Σ_p a[i, p] b[p, j],
// so d loss / d a[i, p] = Σ_j g[i, j] b[p, j]: da = g @ bᵀ ([n, m] @ [m, k] = [n, k]), and likewise
// db = aᵀ @ g ([k, n] @ [n, m] = [k, m]). Declared in lib/src/autograd/pieces.hpp; called by
// MmBackward0 and AddmmBackward0 (lib/src/autograd/matmul_backward.cpp) and, for Bmm, by every
// BmmBackward0.
#include "autograd/pieces.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {

// Layout: when an input is column-major (a transposed view, like Linear's weight.t()), its gradient
// is computed transposed so that it comes out in the input's own layout -- (gᵀ @ a)ᵀ instead of
// aᵀ @ g. The TBackward0 above it then hands the weight a *contiguous* gradient, and accumulating it
// into .grad is a plain vectorised add instead of a strided transpose (PyTorch's mm_mat2_backward
// does the same).
Tensor mm_grad_a(const Tensor& g, const Tensor& b, bool a_column_major) {
  // BEGIN SOLUTION ex3: da = g @ bᵀ (as (b @ gᵀ)ᵀ when a is column-major)
  return a_column_major ? b.mm(g.t()).t() : g.mm(b.t());
  // END SOLUTION
}

Tensor mm_grad_b(const Tensor& g, const Tensor& a, bool b_column_major) {
  // BEGIN SOLUTION ex3: db = aᵀ @ g (as (gᵀ @ a)ᵀ when b is column-major)
  return b_column_major ? g.t().mm(a).t() : a.t().mm(g);
  // END SOLUTION
}

// out[i] = a[i] @ b[i]: the same two formulas, batch by batch (bmm, transposing the last two dims).
Grads Bmm::backward(Context& ctx, const Grads& grad) {
  // BEGIN SOLUTION ex3: da = g @ bᵀ, db = aᵀ @ g, per batch
  const Tensor& g = grad[0];
  return {ctx.needs_input_grad(0) ? bmm(g, ctx.saved(1).transpose(1, 2)) : Tensor(),
          ctx.needs_input_grad(1) ? bmm(ctx.saved(0).transpose(1, 2), g) : Tensor()};
  // END SOLUTION
}

}  // namespace kindling::autograd
