// ch02.ex3 — the backward of matrix products (mm_grad_a, mm_grad_b, Bmm::backward): mm, addmm (a
// Linear layer), bmm and matmul of every rank, compared with PyTorch's gradients.
#include "ch02_grading.hpp"

using namespace ch02_grading;

TEST_CASE("mm: gradients of both inputs", "[ch02][ex3][pts=4]") {
  const kd::Tensor a = leaf("a"), b = leaf("b"), g = grading::input("g");  // [5, 3] @ [3, 4]
  a.mm(b).backward(g);
  expect_grad("a.grad", a);
  expect_grad("b.grad", b);
  const kd::Tensor x = leaf("x");  // x @ x: both gradients meet at one leaf
  x.mm(x).sum().backward();
  expect_grad("x.mm(x).sum(): x.grad", x);
}

TEST_CASE("mm: transposed inputs, as a Linear layer's weight.t()", "[ch02][ex3][pts=4]") {
  const kd::Tensor x = leaf("x"), w = leaf("w"), g = grading::input("g");  // x [6, 5], w [4, 5]
  x.mm(w.t()).backward(g);
  expect_grad("x.mm(w.t()): x.grad", x);
  expect_grad("x.mm(w.t()): w.grad", w);
  grading::expect("x.mm(w.t()): w.grad is contiguous", w.grad().defined() && w.grad().is_contiguous());
  const kd::Tensor v = leaf("v");  // v [5, 6]: v.t() is a column-major first operand
  v.t().mm(w.t()).backward(g);
  expect_grad("v.t().mm(w.t()): v.grad", v);
  grading::expect("v.t().mm(w.t()): v.grad is contiguous", v.grad().defined() && v.grad().is_contiguous());
}

TEST_CASE("addmm: bias + x @ w.t(), what a Linear layer computes", "[ch02][ex3][pts=3]") {
  const kd::Tensor bias = leaf("bias"), x = leaf("x"), w = leaf("w");
  (kd::addmm(bias, x, w.t()).tanh() * grading::input("g")).sum().backward();
  expect_grad("bias.grad", bias);
  expect_grad("x.grad", x);
  expect_grad("w.grad", w);
  const kd::Tensor y = kd::addmm(bias, x, w.t());
  grading::expect("grad_fn name", std::string(y.grad_fn() ? y.grad_fn()->name() : "none"));
}

TEST_CASE("bmm and batched matmul with broadcast batch dimensions", "[ch02][ex3][pts=5]") {
  {
    const kd::Tensor a = leaf("a"), b = leaf("b");  // [2, 3, 4] bmm [2, 4, 5]
    kd::bmm(a, b).backward(grading::input("g"));
    expect_grad("bmm: a.grad", a);
    expect_grad("bmm: b.grad", b);
  }
  {
    const kd::Tensor p = leaf("p"), q = leaf("q");  // [2, 3, 4, 5] @ [5, 2]
    p.matmul(q).tanh().sum().backward();
    expect_grad("[2, 3, 4, 5] @ [5, 2]: p.grad", p);
    expect_grad("[2, 3, 4, 5] @ [5, 2]: q.grad", q);
  }
  {
    const kd::Tensor r = leaf("r"), s = leaf("s");  // [3, 1, 2, 4] @ [5, 4, 3]
    r.matmul(s).exp().sum().backward();
    expect_grad("[3, 1, 2, 4] @ [5, 4, 3]: r.grad", r);
    expect_grad("[3, 1, 2, 4] @ [5, 4, 3]: s.grad", s);
  }
}

TEST_CASE("mm and bmm: only one input requires grad, in float64", "[ch02][ex3][pts=2]") {
  const kd::Tensor a = leaf("a"), c = grading::input("c"), g = grading::input("g");  // [4, 3] @ [3, 2]
  a.mm(c).backward(g);
  expect_grad("a.mm(c): a.grad", a);
  const kd::Tensor d = leaf("d"), e = grading::input("e");  // [2, 3, 4] bmm [2, 4, 3]
  kd::bmm(e.transpose(1, 2), d.transpose(1, 2)).sum().backward();
  expect_grad("bmm(e^T, d^T): d.grad", d);
}

TEST_CASE("mm and bmm: second derivatives (create_graph)", "[ch02][ex3][pts=2]") {
  const kd::Tensor a = leaf("a"), b = leaf("b");  // [3, 4] @ [4, 2], float64
  const kd::Tensor f = (a.mm(b) * a.mm(b)).sum() + kd::bmm(a.unsqueeze(0), b.unsqueeze(0)).tanh().sum();
  const auto g = kd::autograd::grad({f}, {a, b}, {}, {.create_graph = true});
  (g[0].sum() + (g[1] * g[1]).sum()).backward();
  expect_grad("a.grad", a);
  expect_grad("b.grad", b);
}
