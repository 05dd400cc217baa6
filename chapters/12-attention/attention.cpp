// Attention by hand on four tokens: the scores, the causal mask, the weights and the
// output, step by step, then the same in one call of scaled_dot_product_attention.
#include <iostream>

#include "common.hpp"

int main() {
  kd::manual_seed(0);
  // [snippet: by-hand]
  // Four tokens, each a vector of E = 2 numbers (a query, a key and a value each:
  // here all three are the token itself, to keep the numbers few).
  kd::Tensor x = kd::tensor({{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}, {-1.0, 0.5}});
  kd::Tensor q = x, k = x, v = x;                            // [T=4, E=2]
  const double scale = 1.0 / std::sqrt(2.0);                 // 1 / sqrt(E)
  kd::Tensor scores = kd::matmul(q * scale, k.t());          // [4, 4]: query i, key j
  kd::Tensor mask = kd::text::detail::causal_mask(4, 4, 0);  // true: may attend
  kd::Tensor masked = kd::masked_fill(scores, mask == 0, -INFINITY);
  kd::Tensor weights = kd::softmax(masked, -1);  // each row sums to 1
  kd::Tensor out = kd::matmul(weights, v);       // [4, 2]
  // [end]
  kd::set_printoptions({.precision = 3});
  std::cout << "scores = q k^T / sqrt(E):\n" << scores << "\n";
  std::cout << "causal mask (1: may attend):\n" << mask.to(kd::kInt64) << "\n";
  std::cout << "weights = softmax(masked scores):\n" << weights << "\n";
  std::cout << "output = weights v:\n" << out << "\n";
  // [snippet: one-call]
  kd::Tensor same = F::scaled_dot_product_attention(q, k, v, {}, 0.0,
                                                    /*is_causal=*/true);
  // [end]
  std::printf("scaled_dot_product_attention(is_causal) equals it: %s\n",
              kd::allclose(same, out) ? "yes" : "no");
  // Why the scale: with E = 64 random unit-variance q and k, unscaled scores have a
  // standard deviation of sqrt(64) = 8 and the softmax puts nearly all weight on one
  // key.
  kd::Tensor qs = kd::randn({64, 64}), ks = kd::randn({64, 64});
  for (const double s : {1.0, 1.0 / 8.0}) {
    kd::Tensor w = kd::softmax(kd::matmul(qs * s, ks.t()), -1);
    std::printf(
        "E = 64, scale %-5s: scores' std %.2f, largest weight per row %.2f "
        "on average\n",
        s == 1.0 ? "1" : "1/8", kd::matmul(qs * s, ks.t()).std().item<double>(),
        std::get<0>(w.max(1)).mean().item<double>());
  }
}
