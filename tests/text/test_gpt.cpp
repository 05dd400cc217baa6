// Unit tests of the GPT-2-style model (values against a PyTorch twin:
// tests/parity/ch12_text).
#include <catch2/catch.hpp>
#include <kindling/text.hpp>

#include <string>

namespace kd = kindling;
using kd::Tensor;

TEST_CASE(
    "gpt: nanoGPT's parameter names, tied head, causal logits, clear errors") {
  kd::manual_seed(5);
  kd::text::GPT m({.vocab_size = 7,
                   .block_size = 6,
                   .n_layer = 2,
                   .n_head = 2,
                   .n_embd = 8});
  auto names = m.named_parameters();
  CHECK(names.front().first == "transformer.wte.weight");
  CHECK(names[4].first == "transformer.h.0.attn.c_attn.weight");
  CHECK(names.back().first == "transformer.ln_f.bias");
  Tensor idx = kd::randint(0, 7, {2, 5});
  Tensor logits = m(idx);
  REQUIRE(logits.shape() == kd::Shape{2, 5, 7});
  // The first 3 positions' logits do not depend on the tokens after them.
  Tensor idx2 = idx.clone();
  idx2.narrow(1, 3, 2).fill_(0);
  CHECK(kd::allclose(logits.narrow(1, 0, 3), m(idx2).narrow(1, 0, 3), 1e-5,
                     1e-6));
  // The head is the token embedding: its gradient collects both uses.
  auto [l, loss] = m.forward(idx, kd::randint(0, 7, {2, 5}));
  loss.backward();
  CHECK(m.wte->weight.grad().defined());
  try {
    m(kd::randint(0, 7, {1, 7}));
    FAIL("no error");
  } catch (const kd::ValueError &e) {
    CHECK(std::string(e.what()).find("block_size") != std::string::npos);
  }
  CHECK_THROWS_AS(m(kd::randn({2, 5})), kd::ShapeError);
}
