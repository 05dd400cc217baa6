// ch02.ex4 — a topological order of real backward graphs, graded by the ordering property (any valid
// order scores), not against one fixed list.
#include "ch02_grading.hpp"

using namespace ch02_grading;

TEST_CASE("ch02.ex4: a chain and a small expression", "[ch02][ex4][pts=4]") {
  const kd::Tensor x = kd::randn({3}).requires_grad_();
  const kd::Tensor w = kd::randn({3}).requires_grad_();
  check_topological((x * w).tanh().sum().grad_fn(), "tanh(x * w).sum()");
  check_topological((x * w + 1).exp().mean().grad_fn(), "exp(x * w + 1).mean()");
  REQUIRE(ex::topological_order(nullptr).empty());
}

TEST_CASE("ch02.ex4: diamonds: a node used by two paths comes after both", "[ch02][ex4][pts=5]") {
  const kd::Tensor x = kd::randn({4}).requires_grad_();
  const kd::Tensor h = x.tanh();
  check_topological((h * h.sigmoid() + h.exp()).sum().grad_fn(), "h = tanh(x), (h * sigmoid(h) + exp(h)).sum()");
  // Edges skip levels: h is used right away and again at the end.
  kd::Tensor y = h;
  for (int i = 0; i < 5; ++i) y = y.tanh() * 2;
  check_topological((y + h).sum().grad_fn(), "a chain of tanh with a skip connection");
}

TEST_CASE("ch02.ex4: a two-layer network with inputs that need no gradient", "[ch02][ex4][pts=5]") {
  const kd::Tensor x = kd::randn({8, 5});  // data: an invalid edge in MmBackward0
  const kd::Tensor w1 = kd::randn({5, 6}).requires_grad_(), b1 = kd::randn({6}).requires_grad_();
  const kd::Tensor w2 = kd::randn({6, 3}).requires_grad_();
  const kd::Tensor logits = (x.matmul(w1) + b1).relu().matmul(w2);
  check_topological(kd::log_softmax(logits, 1).mean().grad_fn(), "log_softmax(relu(x @ w1 + b1) @ w2).mean()");
  const auto [values, indices] = logits.max(1);  // a node with two outputs
  check_topological((values * values).sum().grad_fn(), "max over dim 1, squared, summed");
}

TEST_CASE("ch02.ex4: a 100,000-node chain (no recursion)", "[ch02][ex4][pts=6]") {
  const kd::Tensor w = kd::randn({2}).requires_grad_();
  kd::Tensor y = w;
  for (int i = 0; i < 100000; ++i) y = (i % 2 == 0) ? y * w : y.tanh();
  check_topological(y.sum().grad_fn(), "100,000 alternating y * w and tanh(y)");
}
