#pragma once
/// @file
/// A GPT-2-style language model with nanoGPT's module names
/// (transformer.wte.weight, transformer.h.0.attn.c_attn.weight, ...), so its
/// state_dict moves to and from a PyTorch twin. Pre-LayerNorm blocks, causal
/// self-attention, a GELU MLP (tanh approximation, as GPT-2), learned position
/// embeddings and an output layer tied to the token embedding.
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
#include "kindling/tensor/random.hpp"

namespace kindling::text {

/// The keys and values of every token seen so far, per layer ([B, n_head, T,
/// head_dim] each), so that generating token T+1 computes attention for that
/// one token instead of all T+1 again.
struct KVCache {
  std::vector<Tensor> k,
      v; ///< one entry per layer, undefined before the first token
  std::int64_t length = 0; ///< tokens cached
};

/// The model's size. `GPTConfig{.vocab_size = 65, .block_size = 64, .n_layer =
/// 4, .n_head = 4, .n_embd = 128}`.
struct GPTConfig {
  std::int64_t vocab_size = 50304;
  std::int64_t block_size =
      1024; ///< the context: the longest sequence the model reads
  std::int64_t n_layer = 12;
  std::int64_t n_head = 12;
  std::int64_t n_embd = 768;
  double dropout = 0.0;
  bool bias = true; ///< biases in the Linear layers and LayerNorms
};

/// LayerNorm with an optional bias (nanoGPT's: PyTorch 1.13's nn.LayerNorm
/// always has one).
class LayerNorm : public nn::Module {
public:
  LayerNorm(std::int64_t ndim, bool bias);
  Tensor forward(const Tensor &x) override;
  std::string type_name() const override { return "LayerNorm"; }
  Tensor weight, bias;
};

/// Causal self-attention: one Linear c_attn makes q, k, v ([B, T, 3C]), heads
/// are reshapes
/// ([B, n_head, T, C/n_head]), scaled_dot_product_attention with is_causal,
/// then c_proj.
class CausalSelfAttention : public nn::Module {
public:
  explicit CausalSelfAttention(const GPTConfig &config);
  Tensor forward(const Tensor &x) override;
  /// x holds the new tokens only (positions `start`...); k_cache and v_cache
  /// grow by them.
  Tensor forward_cached(const Tensor &x, Tensor &k_cache, Tensor &v_cache,
                        std::int64_t start);
  std::string type_name() const override { return "CausalSelfAttention"; }
  std::shared_ptr<nn::Linear> c_attn, c_proj;
  std::shared_ptr<nn::Dropout> attn_dropout, resid_dropout;
  std::int64_t n_head, n_embd;
  double dropout;
};

/// c_fc (C → 4C), GELU (tanh), c_proj (4C → C), dropout.
class MLP : public nn::Module {
public:
  explicit MLP(const GPTConfig &config);
  Tensor forward(const Tensor &x) override;
  std::string type_name() const override { return "MLP"; }
  std::shared_ptr<nn::Linear> c_fc, c_proj;
  std::shared_ptr<nn::Dropout> dropout;
};

/// x + attn(ln_1(x)), then x + mlp(ln_2(x)): pre-LayerNorm with residuals.
class Block : public nn::Module {
public:
  explicit Block(const GPTConfig &config);
  Tensor forward(const Tensor &x) override;
  Tensor forward_cached(const Tensor &x, Tensor &k_cache, Tensor &v_cache,
                        std::int64_t start);
  std::string type_name() const override { return "Block"; }
  std::shared_ptr<LayerNorm> ln_1, ln_2;
  std::shared_ptr<CausalSelfAttention> attn;
  std::shared_ptr<MLP> mlp;
};

/// The model. forward(idx [B, T] int64) → logits [B, T, vocab]. lm_head is tied
/// to transformer.wte.weight (the same tensor), so it is not a parameter of its
/// own and the state_dict holds it once, as transformer.wte.weight (load a
/// nanoGPT checkpoint with its lm_head.weight removed, or with strict = false).
/// Initialised like nanoGPT: N(0, 0.02) weights, zero biases, c_proj weights
/// N(0, 0.02/√(2·n_layer)).
class GPT : public nn::Module {
public:
  explicit GPT(GPTConfig config);
  Tensor forward(const Tensor &idx) override;
  /// (logits, mean cross-entropy against targets [B, T] int64).
  std::pair<Tensor, Tensor> forward(const Tensor &idx, const Tensor &targets);
  /// The logits of the new tokens idx [B, T_new], which follow the cache's
  /// tokens; the cache grows. Equal to forward(all tokens so far)'s last T_new
  /// positions.
  Tensor forward_cached(const Tensor &idx, KVCache &cache);
  std::string type_name() const override { return "GPT"; }

  GPTConfig config;
  std::shared_ptr<nn::Module> transformer; ///< wte, wpe, drop, h, ln_f
  std::shared_ptr<nn::Embedding> wte, wpe;
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::ModuleList> h;
  std::vector<std::shared_ptr<Block>> blocks;
  std::shared_ptr<LayerNorm> ln_f;
};

/// How generate() picks each next token.
struct GenerateOptions {
  double temperature =
      1.0; ///< logits are divided by it; 0 picks the most likely token (greedy)
  std::int64_t top_k = 0; ///< keep only the k most likely tokens (0: all)
  double top_p = 1.0;     ///< keep the fewest most likely tokens whose
                          ///< probabilities add up to p
  bool use_cache = true;  ///< a KV cache (same tokens as without, less work)
};

/// Appends max_new_tokens sampled tokens to idx [B, T] (int64) and returns [B,
/// T + max_new_tokens]. Draws come from `gen` (the default generator when
/// null), so a Generator made with a fixed number gives the same tokens every
/// run, with and without the cache. The context is cropped to block_size.
Tensor generate(GPT &model, const Tensor &idx, std::int64_t max_new_tokens,
                const GenerateOptions &options = {}, Generator *gen = nullptr);

} // namespace kindling::text
