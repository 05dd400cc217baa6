// Backward of tensor/matmul.cpp: mm, bmm, mv, dot and addmm -- the primitives torch.matmul and a
// Linear layer are made of.      out = a @ b   ->   da = g @ bᵀ,   db = aᵀ @ g
#include "autograd/pieces.hpp"
#include "autograd/registry.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

// Layout: when an input is column-major (a transposed view, like Linear's weight.t()), its gradient
// is computed transposed so that it comes out in the input's own layout -- (gᵀ @ a)ᵀ instead of
// aᵀ @ g. The TBackward0 above it then hands the weight a *contiguous* gradient, and accumulating it
// into .grad is a plain vectorised add instead of a strided transpose (PyTorch's mm_mat2_backward
// does the same).
bool is_column_major(const Tensor& t) { return t.dim() == 2 && t.stride(0) == 1 && t.stride(1) == t.size(0); }

// mm: out = a @ b            a: [n, k], b: [k, m], out: [n, m]
// da = g @ bᵀ   [n, m] @ [m, k] = [n, k]        db = aᵀ @ g   [k, n] @ [n, m] = [k, m]
// mm_grad_a and mm_grad_b (autograd/pieces.hpp) are chapter 2's exercise 3.
struct Mm : Function<Mm> {
  static constexpr const char* name = "MmBackward0";
  bool a_column_major = false, b_column_major = false;
  void setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor&) {
    a_column_major = is_column_major(a);
    b_column_major = is_column_major(b);
    // da needs b, db needs a: keep only what will be used.
    ctx.save_for_backward({ctx.needs_input_grad(1) ? a : Tensor(), ctx.needs_input_grad(0) ? b : Tensor()});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    return {ctx.needs_input_grad(0) ? mm_grad_a(grad[0], ctx.saved(1), a_column_major) : Tensor(),
            ctx.needs_input_grad(1) ? mm_grad_b(grad[0], ctx.saved(0), b_column_major) : Tensor()};
  }
};

// bmm: the Function Bmm of autograd/pieces.hpp (its backward is chapter 2's exercise 3).

// mv: out = a @ v            a: [n, k], v: [k], out: [n]
// da = g ⊗ v (outer product, [n, k])            dv = aᵀ @ g  [k]
struct Mv : Function<Mv> {
  static constexpr const char* name = "MvBackward0";
  void setup_context(Context& ctx, const Tensor& a, const Tensor& v, const Tensor&) { ctx.save_for_backward({a, v}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    return {ctx.needs_input_grad(0) ? g.unsqueeze(1).mm(ctx.saved(1).unsqueeze(0)) : Tensor(),
            ctx.needs_input_grad(1) ? mv(ctx.saved(0).t(), g) : Tensor()};
  }
};

// dot: out = Σ a_i b_i (0-d)          da = g * b          db = g * a
struct Dot : Function<Dot> {
  static constexpr const char* name = "DotBackward0";
  void setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor&) { ctx.save_for_backward({a, b}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    return {ctx.needs_input_grad(0) ? g * ctx.saved(1) : Tensor(),
            ctx.needs_input_grad(1) ? g * ctx.saved(0) : Tensor()};
  }
};

// addmm: out = beta * bias + alpha * (a @ b)     what a Linear layer computes: bias + x @ Wᵀ
// dbias = beta * g (the engine sums it over the batch: bias [m] was broadcast to [n, m])
// da = alpha * g @ bᵀ          db = alpha * aᵀ @ g
struct Addmm : Function<Addmm> {
  static constexpr const char* name = "AddmmBackward0";
  double beta = 1, alpha = 1;
  bool a_column_major = false, b_column_major = false;
  void setup_context(Context& ctx, const Tensor&, const Tensor& a, const Tensor& b, const Scalar& beta_,
                     const Scalar& alpha_, const Tensor&) {
    beta = beta_.to_double();
    alpha = alpha_.to_double();
    a_column_major = is_column_major(a);
    b_column_major = is_column_major(b);
    ctx.save_for_backward({ctx.needs_input_grad(2) ? a : Tensor(), ctx.needs_input_grad(1) ? b : Tensor()});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    const Tensor ga = alpha == 1.0 ? g : g * alpha;
    Grads r(3);
    if (ctx.needs_input_grad(0)) r[0] = beta == 1.0 ? g : g * beta;
    if (ctx.needs_input_grad(1)) r[1] = mm_grad_a(ga, ctx.saved(1), a_column_major);
    if (ctx.needs_input_grad(2)) r[2] = mm_grad_b(ga, ctx.saved(0), b_column_major);
    return r;
  }
};

}  // namespace

// bmm: out[i] = a[i] @ b[i]  a: [B, n, k], b: [B, k, m]     da = g @ bᵀ, db = aᵀ @ g, per batch
void Bmm::setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor&) {
  ctx.save_for_backward({a, b});
}

void register_matmul(Registry& r) {
  r.add<Mm>("mm");
  r.add<Bmm>("bmm");
  r.add<Mv>("mv");
  r.add<Dot>("dot");
  r.add<Addmm>("addmm");
}

}  // namespace kindling::autograd
