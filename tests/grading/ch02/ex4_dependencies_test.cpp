// ch02.ex4 — the engine's dependency count (count_dependencies): graphs where a node is reached by
// several paths must run it once, after all its gradients arrived; a count that is off gives PyTorch's
// gradient only by luck. A 100,000-node chain must not overflow the stack.
#include "ch02_grading.hpp"

using namespace ch02_grading;

TEST_CASE("backward: a chain and a diamond (a node used by two paths)", "[ch02][ex4][pts=3]") {
  const kd::Tensor x = leaf("x"), w = leaf("w");
  (x * w).tanh().sum().backward();
  expect_grad("tanh(x * w).sum(): x.grad", x);
  const kd::Tensor y = leaf("x");
  const kd::Tensor h = y.tanh();
  (h * h.sigmoid() + h.exp()).sum().backward();
  expect_grad("h = tanh(x), (h * sigmoid(h) + exp(h)).sum(): x.grad", y);
}

TEST_CASE("backward: skip connections and a parameter used at every step", "[ch02][ex4][pts=3]") {
  const kd::Tensor x = leaf("x"), w = leaf("w");
  const kd::Tensor h = x.tanh();
  kd::Tensor y = h;
  for (int i = 0; i < 6; ++i) y = (y * w).tanh() + (i % 2 == 0 ? h : y * 0.5);
  (y * y).sum().backward();
  expect_grad("x.grad", x);
  expect_grad("w.grad", w);
}

TEST_CASE("backward: several roots at once, one of them inside the other's graph", "[ch02][ex4][pts=3]") {
  const kd::Tensor x = leaf("x"), w = leaf("w");
  const kd::Tensor y1 = (x * w).exp();
  const kd::Tensor y2 = (y1 * x).tanh().sum();
  kd::autograd::backward({y2, y1}, {kd::Tensor(), grading::input("g")});
  expect_grad("x.grad", x);
  expect_grad("w.grad", w);
}

TEST_CASE("backward: a two-layer network, data that needs no gradient, a two-output node", "[ch02][ex4][pts=2]") {
  const kd::Tensor x = grading::input("x");
  const kd::Tensor w1 = leaf("w1"), b1 = leaf("b1"), w2 = leaf("w2");
  const kd::Tensor logits = (x.matmul(w1) + b1).relu().matmul(w2);
  const auto [values, indices] = logits.max(1);
  (kd::log_softmax(logits, 1).mean() + (values * values).sum()).backward();
  expect_grad("w1.grad", w1);
  expect_grad("b1.grad", b1);
  expect_grad("w2.grad", w2);
}

TEST_CASE("backward: a 100,000-node chain (no recursion)", "[ch02][ex4][pts=4]") {
  const kd::Tensor w = leaf("w");
  kd::Tensor y = w;
  for (int i = 0; i < 100000; ++i) y = (i % 2 == 0) ? y * w : y.tanh();
  y.sum().backward();
  expect_grad("w.grad", w);
}
