// Unit tests of the GPT-2-style model (values against a PyTorch twin:
// tests/parity/ch12_text).
#include <catch2/catch.hpp>
#include <kindling/amp.hpp>
#include <kindling/text.hpp>

#include <cmath>
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

TEST_CASE("gpt: a training step under bfloat16 autocast follows float32's, and "
          "a checkpoint resumes it exactly") {
  kd::manual_seed(11);
  const kd::text::GPTConfig config{.vocab_size = 13, .block_size = 8,
                                   .n_layer = 2, .n_head = 2, .n_embd = 16};
  kd::text::GPT m(config);
  Tensor x = kd::randint(0, 13, {3, 8}), y = kd::randint(0, 13, {3, 8});
  const double fp32 = m.forward(x, y).second.item<double>();
  Tensor loss;
  {
    kd::amp::AutocastGuard autocast({.dtype = kd::kBFloat16});
    loss = m.forward(x, y).second;
  }
  CHECK(loss.dtype() == kd::kFloat32); // cross_entropy runs in float32
  CHECK(std::abs(loss.item<double>() - fp32) < 0.05 * std::abs(fp32));
  loss.backward();
  for (auto &[name, p] : m.named_parameters()) {
    INFO(name);
    REQUIRE(p.grad().defined());
    CHECK(p.grad().dtype() == kd::kFloat32); // master weights stay float32
    CHECK(std::isfinite(p.grad().abs().sum().item<double>()));
  }

  // Checkpoint after 2 AdamW steps, then 2 more steps: a fresh model and
  // optimizer loaded from the checkpoint take the same 2 steps.
  auto step = [&](kd::text::GPT &model, kd::optim::AdamW &opt) {
    opt.zero_grad();
    model.forward(x, y).second.backward();
    opt.step();
  };
  kd::optim::AdamW opt(m.parameters(), {.lr = 1e-2});
  step(m, opt);
  step(m, opt);
  const auto sd = m.state_dict();
  const auto opt_state = opt.state_dict();
  kd::text::GPT resumed(config);
  resumed.load_state_dict(sd);
  kd::optim::AdamW opt2(resumed.parameters(), {.lr = 1e-2});
  opt2.load_state_dict(opt_state);
  step(m, opt);
  step(resumed, opt2);
  auto a = m.named_parameters(), b = resumed.named_parameters();
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].first);
    CHECK(kd::equal(a[i].second, b[i].second));
  }
}
