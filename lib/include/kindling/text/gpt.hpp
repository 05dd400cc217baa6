#pragma once
/// @file
/// A GPT-2-style language model with nanoGPT's module names (transformer.wte.weight,
/// transformer.h.0.attn.c_attn.weight, ...), so its state_dict moves to and from a PyTorch twin.
/// Pre-LayerNorm blocks, causal self-attention, a GELU MLP (tanh approximation, as GPT-2), learned
/// position embeddings and an output layer tied to the token embedding.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kindling/nn/container.hpp"
#include "kindling/nn/dropout.hpp"
#include "kindling/nn/embedding.hpp"
#include "kindling/nn/linear.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::text {

/// The model's size. `GPTConfig{.vocab_size = 65, .block_size = 64, .n_layer = 4, .n_head = 4, .n_embd = 128}`.
struct GPTConfig {
  std::int64_t vocab_size = 50304;
  std::int64_t block_size = 1024;  ///< the context: the longest sequence the model reads
  std::int64_t n_layer = 12;
  std::int64_t n_head = 12;
  std::int64_t n_embd = 768;
  double dropout = 0.0;
  bool bias = true;  ///< biases in the Linear layers and LayerNorms
};

/// LayerNorm with an optional bias (nanoGPT's: PyTorch 1.13's nn.LayerNorm always has one).
class LayerNorm : public nn::Module {
 public:
  LayerNorm(std::int64_t ndim, bool bias);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "LayerNorm"; }
  Tensor weight, bias;
};

/// Causal self-attention: one Linear c_attn makes q, k, v ([B, T, 3C]), heads are reshapes
/// ([B, n_head, T, C/n_head]), scaled_dot_product_attention with is_causal, then c_proj.
class CausalSelfAttention : public nn::Module {
 public:
  explicit CausalSelfAttention(const GPTConfig& config);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "CausalSelfAttention"; }
  std::shared_ptr<nn::Linear> c_attn, c_proj;
  std::shared_ptr<nn::Dropout> attn_dropout, resid_dropout;
  std::int64_t n_head, n_embd;
  double dropout;
};

/// c_fc (C → 4C), GELU (tanh), c_proj (4C → C), dropout.
class MLP : public nn::Module {
 public:
  explicit MLP(const GPTConfig& config);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "MLP"; }
  std::shared_ptr<nn::Linear> c_fc, c_proj;
  std::shared_ptr<nn::Dropout> dropout;
};

/// x + attn(ln_1(x)), then x + mlp(ln_2(x)): pre-LayerNorm with residuals.
class Block : public nn::Module {
 public:
  explicit Block(const GPTConfig& config);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Block"; }
  std::shared_ptr<LayerNorm> ln_1, ln_2;
  std::shared_ptr<CausalSelfAttention> attn;
  std::shared_ptr<MLP> mlp;
};

/// The model. forward(idx [B, T] int64) → logits [B, T, vocab]. lm_head is tied to
/// transformer.wte.weight (the same tensor), so it is not a parameter of its own and the state_dict
/// holds it once, as transformer.wte.weight (load a nanoGPT checkpoint with its lm_head.weight
/// removed, or with strict = false). Initialised like nanoGPT: N(0, 0.02) weights, zero biases,
/// c_proj weights N(0, 0.02/√(2·n_layer)).
class GPT : public nn::Module {
 public:
  explicit GPT(GPTConfig config);
  Tensor forward(const Tensor& idx) override;
  /// (logits, mean cross-entropy against targets [B, T] int64).
  std::pair<Tensor, Tensor> forward(const Tensor& idx, const Tensor& targets);
  std::string type_name() const override { return "GPT"; }

  GPTConfig config;
  std::shared_ptr<nn::Module> transformer;  ///< wte, wpe, drop, h, ln_f
  std::shared_ptr<nn::Embedding> wte, wpe;
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::ModuleList> h;
  std::vector<std::shared_ptr<Block>> blocks;
  std::shared_ptr<LayerNorm> ln_f;
};

}  // namespace kindling::text
