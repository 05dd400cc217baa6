// The GPT-2-style model: nanoGPT's modules, composed of nn layers and recorded ops.
#include "kindling/text/gpt.hpp"

#include <cmath>
#include <string>

#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/text/attention.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::text {

namespace F = nn::functional;

LayerNorm::LayerNorm(std::int64_t ndim, bool has_bias) {
  weight = register_parameter("weight", ones({ndim}));
  if (has_bias) bias = register_parameter("bias", zeros({ndim}));
}
Tensor LayerNorm::forward(const Tensor& x) { return F::layer_norm(x, {weight.size(0)}, weight, bias, 1e-5); }

CausalSelfAttention::CausalSelfAttention(const GPTConfig& c)
    : n_head(c.n_head), n_embd(c.n_embd), dropout(c.dropout) {
  if (c.n_head <= 0 || c.n_embd % c.n_head != 0) {
    throw ValueError("CausalSelfAttention: n_embd " + std::to_string(c.n_embd) + " must be a multiple of n_head " +
                     std::to_string(c.n_head));
  }
  c_attn = register_module("c_attn", std::make_shared<nn::Linear>(c.n_embd, 3 * c.n_embd, nn::LinearOptions{c.bias}));
  c_proj = register_module("c_proj", std::make_shared<nn::Linear>(c.n_embd, c.n_embd, nn::LinearOptions{c.bias}));
  attn_dropout = register_module("attn_dropout", std::make_shared<nn::Dropout>(c.dropout));
  resid_dropout = register_module("resid_dropout", std::make_shared<nn::Dropout>(c.dropout));
}

Tensor CausalSelfAttention::forward(const Tensor& x) {
  const std::int64_t B = x.size(0), T = x.size(1), C = x.size(2), hs = C / n_head;
  Tensor qkv = (*c_attn)(x);  // [B, T, 3C]
  // Each of q, k, v: [B, T, C] -> [B, T, n_head, hs] -> [B, n_head, T, hs] (views).
  Tensor q = qkv.narrow(2, 0, C).view({B, T, n_head, hs}).transpose(1, 2);
  Tensor k = qkv.narrow(2, C, C).view({B, T, n_head, hs}).transpose(1, 2);
  Tensor v = qkv.narrow(2, 2 * C, C).view({B, T, n_head, hs}).transpose(1, 2);
  Tensor y = F::scaled_dot_product_attention(q, k, v, Tensor(), dropout, /*is_causal=*/true, is_training());
  y = y.transpose(1, 2).contiguous().view({B, T, C});  // heads side by side again
  return (*resid_dropout)((*c_proj)(y));
}

MLP::MLP(const GPTConfig& c) {
  c_fc = register_module("c_fc", std::make_shared<nn::Linear>(c.n_embd, 4 * c.n_embd, nn::LinearOptions{c.bias}));
  c_proj = register_module("c_proj", std::make_shared<nn::Linear>(4 * c.n_embd, c.n_embd, nn::LinearOptions{c.bias}));
  dropout = register_module("dropout", std::make_shared<nn::Dropout>(c.dropout));
}
Tensor MLP::forward(const Tensor& x) { return (*dropout)((*c_proj)(F::gelu((*c_fc)(x), "tanh"))); }

Block::Block(const GPTConfig& c) {
  ln_1 = register_module("ln_1", std::make_shared<LayerNorm>(c.n_embd, c.bias));
  attn = register_module("attn", std::make_shared<CausalSelfAttention>(c));
  ln_2 = register_module("ln_2", std::make_shared<LayerNorm>(c.n_embd, c.bias));
  mlp = register_module("mlp", std::make_shared<MLP>(c));
}
Tensor Block::forward(const Tensor& x) {
  Tensor y = x + (*attn)((*ln_1)(x));
  return y + (*mlp)((*ln_2)(y));
}

namespace {
struct Transformer : nn::Module {
  std::string type_name() const override { return "ModuleDict"; }
};
}  // namespace

GPT::GPT(GPTConfig c) : config(c) {
  if (c.vocab_size <= 0 || c.block_size <= 0 || c.n_layer < 0) {
    throw ValueError("GPT: vocab_size and block_size must be positive and n_layer >= 0");
  }
  transformer = register_module("transformer", std::make_shared<Transformer>());
  wte = transformer->register_module("wte", std::make_shared<nn::Embedding>(c.vocab_size, c.n_embd));
  wpe = transformer->register_module("wpe", std::make_shared<nn::Embedding>(c.block_size, c.n_embd));
  drop = transformer->register_module("drop", std::make_shared<nn::Dropout>(c.dropout));
  h = transformer->register_module("h", std::make_shared<nn::ModuleList>());
  for (std::int64_t i = 0; i < c.n_layer; ++i) {
    blocks.push_back(std::make_shared<Block>(c));
    h->append(blocks.back());
  }
  ln_f = transformer->register_module("ln_f", std::make_shared<LayerNorm>(c.n_embd, c.bias));
  // nanoGPT's initialisation.
  for (auto& [name, p] : named_parameters()) {
    const bool is_bias = name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0;
    if (name.find(".ln_") != std::string::npos) continue;  // LayerNorms keep ones and zeros
    if (is_bias) {
      nn::init::zeros_(p);
    } else if (name.size() >= 13 && name.compare(name.size() - 13, 13, "c_proj.weight") == 0) {
      nn::init::normal_(p, 0.0, 0.02 / std::sqrt(2.0 * static_cast<double>(c.n_layer)));
    } else {
      nn::init::normal_(p, 0.0, 0.02);
    }
  }
}

Tensor GPT::forward(const Tensor& idx) {
  if (idx.dim() != 2 || idx.dtype() != kInt64) {
    throw ShapeError(std::string("GPT: expected idx to be [batch, time] int64 token ids but got ") + dtype_name(idx.dtype()) +
                     " of " + std::to_string(idx.dim()) + " dims. Hint: a single sequence is idx.unsqueeze(0).");
  }
  const std::int64_t T = idx.size(1);
  if (T > config.block_size) {
    throw ValueError("GPT: cannot forward a sequence of length " + std::to_string(T) + ", block_size is only " +
                     std::to_string(config.block_size) + ". Hint: crop to the last block_size tokens.");
  }
  Tensor pos = arange(0, T, 1, TensorOptions{.dtype = kInt64});
  Tensor x = (*drop)((*wte)(idx) + (*wpe)(pos));  // [B, T, C] + [T, C]
  for (auto& b : blocks) x = (*b)(x);
  x = (*ln_f)(x);
  return matmul(x, wte->weight.t());  // lm_head tied to wte: [B, T, C] @ [C, vocab]
}

std::pair<Tensor, Tensor> GPT::forward(const Tensor& idx, const Tensor& targets) {
  Tensor logits = forward(idx);
  Tensor loss = nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}), targets.reshape({-1}));
  return {logits, loss};
}

}  // namespace kindling::text
