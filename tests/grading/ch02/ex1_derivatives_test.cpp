// ch02.ex1 — the backward of mul, div, exp and tanh (Mul, Div, Exp, Tanh::backward), through
// backward() and autograd::grad: every gradient is compared with PyTorch's.
#include "ch02_grading.hpp"

using namespace ch02_grading;

TEST_CASE("mul: gradients of both inputs", "[ch02][ex1][pts=4]") {
  const kd::Tensor a = leaf("a"), b = leaf("b"), g = grading::input("g");
  (a * b).backward(g);
  expect_grad("a.grad", a);
  expect_grad("b.grad", b);
  const kd::Tensor x = leaf("x");  // x * x: both gradients meet at the same leaf
  (x * x).backward(g);
  expect_grad("(x * x): x.grad", x);
}

TEST_CASE("div: gradients of both inputs", "[ch02][ex1][pts=4]") {
  const kd::Tensor a = leaf("a"), b = leaf("b"), g = grading::input("g");
  (a / b).backward(g);
  expect_grad("a.grad", a);
  expect_grad("b.grad", b);
}

TEST_CASE("exp and tanh: gradients in float32 and float64", "[ch02][ex1][pts=4]") {
  for (const std::string name : {"x", "x64"}) {
    const kd::Tensor x = leaf(name), g = grading::input("g_" + name);
    x.exp().backward(g);
    expect_grad(name + ".exp(): grad", x);
    const kd::Tensor y = leaf(name);
    y.tanh().backward(g);
    expect_grad(name + ".tanh(): grad", y);
  }
  const kd::Tensor big = leaf("big");  // tanh saturates: 1 - out² must not go negative or nan
  big.tanh().sum().backward();
  expect_grad("big.tanh().sum(): grad", big);
}

TEST_CASE("mul and div: only one input requires grad", "[ch02][ex1][pts=3]") {
  const kd::Tensor c = grading::input("c"), g = grading::input("g");
  const auto run = [&](const std::string& what, auto f) {
    const kd::Tensor a = leaf("a");
    f(a).backward(g);
    expect_grad(what + ": a.grad", a);
  };
  run("a * c", [&](const kd::Tensor& a) { return a * c; });
  run("c * a", [&](const kd::Tensor& a) { return c * a; });
  run("a / c", [&](const kd::Tensor& a) { return a / c; });
  run("c / a", [&](const kd::Tensor& a) { return c / a; });
}

TEST_CASE("mul, div, exp, tanh: broadcast and non-contiguous inputs", "[ch02][ex1][pts=2]") {
  const kd::Tensor a = leaf("a"), b = leaf("b"), w = leaf("w");  // a [3, 1], b [4], w [4, 3]
  ((a * b) / (w.t().exp() + 1.0) + w.t().tanh() * a).sum().backward();
  expect_grad("a.grad", a);
  expect_grad("b.grad", b);
  expect_grad("w.grad", w);
}

TEST_CASE("mul, div, exp, tanh: second derivatives (create_graph)", "[ch02][ex1][pts=3]") {
  const kd::Tensor x = leaf("x"), y = leaf("y");
  const kd::Tensor f = (x * x * y / (y * y + 1.0) + (x * y).tanh() + (x / y).exp()).sum();
  const auto g = kd::autograd::grad({f}, {x, y}, {}, {.create_graph = true});
  grading::expect("df/dx", g[0].detach());
  grading::expect("df/dy", g[1].detach());
  (g[0] * g[1]).sum().backward();
  expect_grad("x.grad of (df/dx * df/dy).sum()", x);
  expect_grad("y.grad of (df/dx * df/dy).sum()", y);
}
