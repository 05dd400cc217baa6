// ch12.ex1 — detail::causal_mask, the mask scaled_dot_product_attention(is_causal) and the KV cache
// use: every mask against PyTorch's tril of the same size and offset.
#include "ch12_grading.hpp"

using namespace ch12_grading;

TEST_CASE("causal mask: the training mask, L == S", "[ch12][ex1][pts=5]") {
  for (std::int64_t n : ints_of("sizes")) {
    const std::string s = std::to_string(n);
    grading::expect("causal_mask(" + s + ", " + s + ", 0)", detail::causal_mask(n, n, 0));
  }
}

TEST_CASE("causal mask: new queries after a KV cache (offset)", "[ch12][ex1][pts=5]") {
  const auto v = ints_of("sizes");
  const std::int64_t L = v[0], S = v[1], off = v[2];
  auto name = [](std::int64_t a, std::int64_t b, std::int64_t c) {
    return "causal_mask(" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) + ")";
  };
  grading::expect(name(L, S, S - L), detail::causal_mask(L, S, S - L));
  grading::expect(name(L, S, off), detail::causal_mask(L, S, off));
  grading::expect(name(1, S, S - 1), detail::causal_mask(1, S, S - 1));
}
