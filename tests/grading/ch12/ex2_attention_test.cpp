// ch12.ex2 — detail::attention through nn::functional::scaled_dot_product_attention: the output and
// the gradients autograd finds through your ops, against PyTorch's formula and PyTorch's autograd.
#include "ch12_grading.hpp"

using namespace ch12_grading;

namespace {

kd::Tensor leaf(const std::string& name) { return grading::input(name).clone().requires_grad_(true); }

/// q, k, v (and an optional mask) from the twin; output and gradients reported.
void attend(bool with_mask, bool mask_grad = false) {
  kd::Tensor q = leaf("q"), k = leaf("k"), v = leaf("v");
  kd::Tensor mask;
  if (with_mask) mask = mask_grad ? leaf("mask") : grading::input("mask");
  kd::Tensor out = F::scaled_dot_product_attention(q, k, v, mask);
  out.backward(grading::input("g"));
  grading::expect("output", out);
  grading::expect("q.grad", q.grad());
  grading::expect("k.grad", k.grad());
  grading::expect("v.grad", v.grad());
  if (mask_grad) grading::expect("mask.grad", mask.grad());
}

}  // namespace

TEST_CASE("attention: no mask, L != S, output and the gradients of q, k, v", "[ch12][ex2][pts=7]") {
  attend(false);
}

TEST_CASE("attention: a bool mask, broadcast over batch and heads", "[ch12][ex2][pts=5]") { attend(true); }

TEST_CASE("attention: a float mask is added, and gets its gradient", "[ch12][ex2][pts=5]") {
  attend(true, /*mask_grad=*/true);
}

TEST_CASE("attention: is_causal, float64, non-contiguous q k v", "[ch12][ex2][pts=5]") {
  kd::Tensor q = leaf("q"), k = leaf("k"), v = leaf("v");  // [B, T, H, E]; attended as [B, H, T, E]
  kd::Tensor out = F::scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                   kd::Tensor(), 0.0, /*is_causal=*/true);
  out.backward(grading::input("g"));
  grading::expect("output", out);
  grading::expect("q.grad", q.grad());
  grading::expect("k.grad", k.grad());
  grading::expect("v.grad", v.grad());
}

TEST_CASE("attention: the scale is 1/sqrt(E) of q, E != Ev", "[ch12][ex2][pts=3]") {
  grading::expect("output",
                  F::scaled_dot_product_attention(grading::input("q"), grading::input("k"), grading::input("v")));
}
