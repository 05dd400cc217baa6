// ch12.ex3 — detail::split_heads and merge_heads, as CausalSelfAttention uses them: on slices of
// c_attn's output, on attention's non-contiguous output, and under autograd; against PyTorch's view,
// transpose and reshape.
#include "ch12_grading.hpp"

using namespace ch12_grading;

TEST_CASE("heads: split a slice of c_attn's output", "[ch12][ex3][pts=6]") {
  const kd::Tensor qkv = grading::input("qkv");  // [B, T, 3C]
  const std::int64_t n_head = grading::input("n_head").item<std::int64_t>(), C = qkv.size(2) / 3;
  const char* names[] = {"q", "k", "v"};
  for (std::int64_t i = 0; i < 3; ++i) {
    grading::expect(std::string("split_heads(") + names[i] + ")",
                    detail::split_heads(qkv.narrow(2, i * C, C), n_head));
  }
}

TEST_CASE("heads: merge, and the round trip", "[ch12][ex3][pts=5]") {
  const kd::Tensor y = grading::input("y_bthd").transpose(1, 2);  // [B, nh, T, hs], non-contiguous
  grading::expect("merge_heads(y)", detail::merge_heads(y));
  const kd::Tensor x = grading::input("x");
  grading::expect("merge(split(x))", detail::merge_heads(detail::split_heads(x, y.size(1))));
}

TEST_CASE("heads: gradients flow through split and merge", "[ch12][ex3][pts=4]") {
  kd::Tensor x = grading::input("x").clone().requires_grad_(true);
  const kd::Tensor w = grading::input("w");  // [nh, 1, hs]: each head scaled its own way
  kd::Tensor y = detail::merge_heads(detail::split_heads(x, w.size(0)) * w);
  y.backward(grading::input("g"));
  grading::expect("y", y);
  grading::expect("x.grad", x.grad());
}
