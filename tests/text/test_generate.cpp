// Generation and the KV cache.
#include <catch2/catch.hpp>
#include <kindling/text.hpp>

namespace kd = kindling;
using kd::Tensor;

namespace {
kd::text::GPTConfig tiny() {
  return {
      .vocab_size = 9, .block_size = 6, .n_layer = 2, .n_head = 2, .n_embd = 8};
}
} // namespace

TEST_CASE("generate: the KV cache's logits equal the uncached forward's") {
  kd::manual_seed(6);
  kd::text::GPT m(tiny());
  m.eval();
  kd::NoGradGuard no_grad;
  Tensor idx = kd::randint(0, 9, {2, 6});
  Tensor full = m(idx); // [2, 6, 9]
  kd::text::KVCache cache;
  // A prompt of 3 tokens, then one token at a time.
  Tensor first = m.forward_cached(idx.narrow(1, 0, 3), cache);
  CHECK(kd::allclose(first, full.narrow(1, 0, 3), 1e-5, 1e-6));
  for (std::int64_t t = 3; t < 6; ++t) {
    Tensor step = m.forward_cached(idx.narrow(1, t, 1), cache);
    CHECK(kd::allclose(step, full.narrow(1, t, 1), 1e-5, 1e-6));
  }
  CHECK(cache.length == 6);
  CHECK_THROWS_AS(m.forward_cached(idx.narrow(1, 0, 1), cache), kd::ValueError);
}

TEST_CASE("generate: two generators in the same state give the same tokens "
          "with and without the cache") {
  kd::manual_seed(7);
  kd::text::GPT m(tiny());
  m.eval();
  Tensor prompt = kd::randint(0, 9, {2, 2});
  for (auto o : {kd::text::GenerateOptions{.temperature = 1.0},
                 kd::text::GenerateOptions{.temperature = 0.7, .top_k = 3},
                 kd::text::GenerateOptions{.temperature = 1.3, .top_p = 0.8}}) {
    kd::Generator g1(42), g2(42);
    o.use_cache = true;
    Tensor a = kd::text::generate(m, prompt, 9, o,
                                  &g1); // 11 tokens: past block_size 6
    o.use_cache = false;
    Tensor b = kd::text::generate(m, prompt, 9, o, &g2);
    REQUIRE(a.shape() == kd::Shape{2, 11});
    CHECK(kd::equal(a, b));
    CHECK(kd::equal(a.narrow(1, 0, 2), prompt));
  }
  // Greedy three ways: temperature 0, top_k 1, a tiny top_p.
  kd::Generator g(1);
  Tensor greedy = kd::text::generate(m, prompt, 5, {.temperature = 0.0}, &g);
  CHECK(kd::equal(greedy, kd::text::generate(m, prompt, 5, {.top_k = 1}, &g)));
  CHECK(
      kd::equal(greedy, kd::text::generate(m, prompt, 5, {.top_p = 1e-6}, &g)));
  // The greedy token is the argmax of the uncached logits.
  kd::NoGradGuard no_grad;
  Tensor logits = m(prompt);
  CHECK(kd::equal(greedy.narrow(1, 2, 1).reshape({2}),
                  logits.narrow(1, 1, 1).reshape({2, 9}).argmax(1)));
  // Other draws differ from greedy at some point with temperature 2 (9 tokens,
  // 2 rows).
  kd::Generator g3(3);
  CHECK_FALSE(
      kd::equal(kd::text::generate(m, prompt, 9, {.temperature = 2.0}, &g3),
                kd::text::generate(m, prompt, 9, {.temperature = 0.0}, &g3)));
  CHECK_THROWS_AS(kd::text::generate(m, prompt, 1, {.top_p = 0.0}),
                  kd::ValueError);
}
