// Chapter 12 parity: the Kindling twin of every case in ch12_text.py.
#include <kindling/text.hpp>

#include <kindling/optim/adam.hpp>

#include "parity.hpp"

namespace {
using kd::Tensor;
namespace F = kd::nn::functional;

constexpr std::int64_t E = 8, H = 2;

std::pair<Tensor, Tensor> mha(parity::Inputs &in, const Tensor &q,
                              const Tensor &k, const Tensor &v,
                              F::MultiheadAttentionForwardOptions o = {},
                              std::int64_t heads = H) {
  auto get = [&](const char *n) {
    return in.all().count(n) ? in[n] : Tensor();
  };
  return F::multi_head_attention_forward(q, k, v, q.size(-1), heads, in["w"],
                                         get("b"), 0.0, in["ow"], get("ob"),
                                         true, o);
}
parity::Outputs both(std::pair<Tensor, Tensor> p) {
  return {p.first, p.second};
}
// (key length 5) >= (valid lengths 5 and 3): the last two keys of batch 1 are
// padding.
Tensor padding() {
  return kd::arange(5).unsqueeze(0) >=
         kd::tensor(std::vector<std::int64_t>{5, 3}, {2}).unsqueeze(1);
}
// q, k, v from the case's inputs, with an optional mask.
Tensor sdpa(parity::Inputs &in, const Tensor &mask = Tensor()) {
  return F::scaled_dot_product_attention(in["q"], in["k"], in["v"], mask);
}
// (r > 0.4) with key 0 always allowed, so that no row is empty.
Tensor allowed(parity::Inputs &in) {
  return kd::masked_fill(in["r"] > 0.4, kd::arange(6) == 0, true);
}
} // namespace

PARITY_CASE("sdpa/basic") { return sdpa(in); }
PARITY_CASE("sdpa/causal") {
  return F::scaled_dot_product_attention(in["q"], in["k"], in["v"], Tensor(),
                                         0.0, /*is_causal=*/true);
}
PARITY_CASE("sdpa/bool-mask") { return sdpa(in, allowed(in)); }
PARITY_CASE("sdpa/float-mask") { return sdpa(in, in["m"]); }
PARITY_CASE("sdpa/non-contiguous") {
  return F::scaled_dot_product_attention(in["q"].transpose(1, 2),
                                         in["k"].transpose(1, 2),
                                         in["v"].transpose(1, 2));
}
PARITY_CASE("sdpa/float64") {
  return F::scaled_dot_product_attention(in["q"], in["k"], in["v"], Tensor(),
                                         0.0, true);
}
PARITY_CASE("sdpa/key-padding-mask") { return sdpa(in, allowed(in)); }
PARITY_CASE("sdpa/mask-row") { return sdpa(in, in["m"]); }
PARITY_CASE("sdpa/mask-column") { return sdpa(in, in["m"]); }
PARITY_CASE("sdpa/mask-0d") { return sdpa(in, in["m"]); }
PARITY_CASE("sdpa/q-fewer-batch-dims") { return sdpa(in); }
PARITY_CASE("sdpa/mask-enlarges-scores") { return sdpa(in, in["m"]); }
PARITY_CASE("sdpa/bad-head-dim") { return sdpa(in); }

PARITY_CASE("mha/self") { return both(mha(in, in["x"], in["x"], in["x"])); }
PARITY_CASE("mha/cross-per-head") {
  return both(
      mha(in, in["q"], in["kv"], in["kv"], {.average_attn_weights = false}));
}
PARITY_CASE("mha/separate-kv") {
  return both(mha(in, in["q"], in["k"], in["v"]));
}
PARITY_CASE("mha/batch-first") {
  // What MultiheadAttention's batch_first does: [N, L, E] viewed as [L, N, E]
  // (not contiguous) and the output transposed back (tests/text checks the
  // module against this path).
  Tensor x = in["x"];
  auto [out, w] = F::multi_head_attention_forward(
      x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), E, H, in["w"],
      in["b"], 0.0, in["ow"], in["ob"], true);
  return {out.transpose(0, 1), w};
}
PARITY_CASE("mha/no-bias") { return both(mha(in, in["x"], in["x"], in["x"])); }
PARITY_CASE("mha/no-weights") {
  auto [out, w] = mha(in, in["x"], in["x"], in["x"], {.need_weights = false});
  if (w.defined())
    throw kd::Error("need_weights=false returned weights");
  return out;
}
PARITY_CASE("mha/unbatched") {
  return both(mha(in, in["x"], in["x"], in["x"]));
}
PARITY_CASE("mha/attn-mask-bool") {
  Tensor mask = kd::masked_fill(in["r"] > 0.6, kd::arange(5) == 0, false);
  return both(mha(in, in["x"], in["x"], in["x"], {.attn_mask = mask}));
}
PARITY_CASE("mha/attn-mask-causal") {
  Tensor mask = kd::triu(kd::ones({5, 5}), 1).to(kd::kBool);
  return both(mha(in, in["x"], in["x"], in["x"], {.attn_mask = mask}));
}
PARITY_CASE("mha/attn-mask-float-3d") {
  return both(mha(in, in["x"], in["x"], in["x"], {.attn_mask = in["m"]}));
}
PARITY_CASE("mha/key-padding-mask") {
  return both(
      mha(in, in["x"], in["x"], in["x"], {.key_padding_mask = padding()}));
}
PARITY_CASE("mha/both-masks") {
  Tensor mask = kd::triu(kd::ones({5, 5}), 1) * -1e9;
  return both(mha(in, in["x"], in["x"], in["x"],
                  {.key_padding_mask = padding(), .attn_mask = mask}));
}
PARITY_CASE("mha/attn-mask-float64") {
  return both(mha(in, in["x"], in["x"], in["x"], {.attn_mask = in["m"]}));
}
PARITY_CASE("mha/key-padding-float") {
  return both(
      mha(in, in["x"], in["x"], in["x"], {.key_padding_mask = in["p"]}));
}
PARITY_CASE("mha/four-heads") {
  return both(mha(in, in["x"], in["x"], in["x"], {}, 4));
}
PARITY_CASE("mha/empty-batch") {
  return both(mha(in, in["x"], in["x"], in["x"]));
}
PARITY_CASE("mha/bad-mask-shape") {
  return both(
      mha(in, in["x"], in["x"], in["x"], {.attn_mask = kd::zeros({4, 5})}));
}
PARITY_CASE("mha/bad-embed-dim") {
  return both(mha(in, in["x"], in["x"], in["x"]));
}

PARITY_CASE("mha/module-print-and-names") {
  kd::nn::MultiheadAttention m(E, H);
  std::string s = m.to_string() + "\n";
  bool first = true;
  for (auto &[name, t] : m.state_dict()) {
    s += (first ? "" : " ") + name + ":[";
    for (std::int64_t i = 0; i < t.dim(); ++i)
      s += (i ? ", " : "") + std::to_string(t.size(i));
    s += "]";
    first = false;
  }
  std::vector<std::int64_t> bytes(s.begin(), s.end());
  return kd::tensor(bytes, {static_cast<std::int64_t>(bytes.size())})
      .to(kd::kUInt8);
}

// ---- the GPT-2-style model: the twin's weights loaded strictly from the
// oracle's safetensors ----
namespace {
namespace text = kd::text;
std::shared_ptr<text::GPT> gpt(const std::string &name) {
  text::GPTConfig c = name == "bias" ? text::GPTConfig{.vocab_size = 11,
                                                       .block_size = 8,
                                                       .n_layer = 2,
                                                       .n_head = 2,
                                                       .n_embd = 8,
                                                       .bias = true}
                                     : text::GPTConfig{.vocab_size = 13,
                                                       .block_size = 6,
                                                       .n_layer = 1,
                                                       .n_head = 4,
                                                       .n_embd = 8,
                                                       .bias = false};
  auto m = std::make_shared<text::GPT>(c);
  m->load_state_dict(
      kd::load(parity::oracle_dir() + "/gpt_" + name + ".safetensors"),
      /*strict=*/true);
  return m;
}
parity::Outputs gpt_grads(const std::string &name, parity::Inputs &in) {
  auto m = gpt(name);
  auto [logits, loss] = m->forward(in["idx"], in["targets"]);
  loss.backward();
  std::vector<Tensor> out{logits, loss};
  for (auto &[n, p] : m->named_parameters())
    out.push_back(p.grad());
  return out;
}
} // namespace

PARITY_CASE("gpt/grads-bias") { return gpt_grads("bias", in); }
PARITY_CASE("gpt/grads-nobias-short") { return gpt_grads("nobias", in); }
PARITY_CASE("gpt/adamw-10-steps") {
  auto m = gpt("nobias");
  std::vector<Tensor> decay, no_decay;
  for (auto &[n, p] : m->named_parameters())
    (p.dim() >= 2 ? decay : no_decay).push_back(p);
  kd::optim::AdamW opt(decay,
                       {.lr = 1e-2, .betas = {0.9, 0.95}, .weight_decay = 0.1});
  opt.add_param_group(no_decay,
                      {.lr = 1e-2, .betas = {0.9, 0.95}, .weight_decay = 0.0});
  std::vector<Tensor> losses;
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    Tensor loss = m->forward(in["idx"], in["targets"]).second;
    loss.backward();
    opt.step();
    losses.push_back(loss.detach());
  }
  std::vector<Tensor> out{kd::stack(losses)};
  for (auto &[n, p] : m->named_parameters())
    out.push_back(p.detach().clone());
  return out;
}
PARITY_CASE("gpt/too-long") {
  return gpt("nobias")->forward(in["idx"], in["t"]).first;
}

namespace {
parity::Outputs mha_module(bool batch_first, bool bias, parity::Inputs &in) {
  kd::nn::MultiheadAttention m(E, H,
                               {.bias = bias, .batch_first = batch_first});
  const std::string tag =
      std::string("mha_") + (batch_first ? "1" : "0") + (bias ? "1" : "0");
  m.load_state_dict(kd::load(parity::oracle_dir() + "/" + tag + ".safetensors"),
                    /*strict=*/true);
  Tensor kpm = kd::arange(6).unsqueeze(0) >=
               kd::tensor(std::vector<std::int64_t>{6, 4}, {2}).unsqueeze(1);
  auto [out, w] =
      m.forward(in["q"], in["kv"], in["kv"], {.key_padding_mask = kpm});
  out.backward(kd::ones_like(out));
  std::vector<Tensor> outs{out, w};
  for (auto &p : m.parameters())
    outs.push_back(p.grad());
  return outs;
}
} // namespace

PARITY_CASE("mha/module-batch-first") { return mha_module(true, true, in); }
PARITY_CASE("mha/module-seq-first-no-bias") {
  return mha_module(false, false, in);
}
