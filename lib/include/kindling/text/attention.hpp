#pragma once
/// @file
/// Attention: scaled dot-product attention and nn::MultiheadAttention
/// (PyTorch 1.13's semantics and parameter names, so a
/// torch.nn.MultiheadAttention state_dict loads). They live in PyTorch's
/// namespaces (kd::nn, kd::nn::functional) because that is where a PyTorch
/// reader looks for them; the code belongs to chapter 12's layer
/// (kindling_text).
#include <cstdint>
#include <string>
#include <utility>

#include "kindling/nn/linear.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::nn::functional {

/// softmax(q·kᵀ/√head_dim + mask)·v, built from differentiable ops (gradients
/// reach q, k, v and a float mask). q: [*, L, E], k: [*, S, E], v: [*, S, Ev]
/// (typically [batch, heads, seq, head_dim]) → [*, L, Ev]. `attn_mask`
/// (broadcast to [*, L, S]) is bool (true = may attend, as in PyTorch's
/// scaled_dot_product_attention; MultiheadAttention's bool masks mean the
/// opposite) or float (added to the scores). `is_causal` forbids position i to
/// see j > i (it may not be combined with attn_mask). `dropout_p` drops
/// attention weights in training. A row whose every position is masked gives
/// NaN, as in PyTorch.
Tensor scaled_dot_product_attention(const Tensor &q, const Tensor &k,
                                    const Tensor &v,
                                    const Tensor &attn_mask = Tensor(),
                                    double dropout_p = 0.0,
                                    bool is_causal = false,
                                    bool training = true);

/// The options of multi_head_attention_forward / MultiheadAttention::forward
/// (PyTorch's keywords).
struct MultiheadAttentionForwardOptions {
  Tensor key_padding_mask;  ///< [N, S] (or [S] unbatched): bool true = ignore
                            ///< that key; or float, added
  bool need_weights = true; ///< also return the attention weights
  Tensor attn_mask; ///< [L, S] or [N·num_heads, L, S]; bool (true = may not
                    ///< attend) or float
  bool average_attn_weights =
      true; ///< weights averaged over heads [N, L, S], else [N, heads, L, S]
};

/// torch.nn.functional.multi_head_attention_forward with packed projections (no
/// bias_k/bias_v, no zero attention). query [L, N, E] (or [L, E] unbatched),
/// key/value [S, N, E] → (output [L, N, E], weights or an undefined tensor when
/// need_weights is false).
std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor &query, const Tensor &key, const Tensor &value,
    std::int64_t embed_dim, std::int64_t num_heads,
    const Tensor &in_proj_weight, const Tensor &in_proj_bias, double dropout_p,
    const Tensor &out_proj_weight, const Tensor &out_proj_bias, bool training,
    const MultiheadAttentionForwardOptions &options = {});

} // namespace kindling::nn::functional

namespace kindling::nn {

/// PyTorch's name for MultiheadAttention's output projection (a Linear; the
/// name is what prints).
class NonDynamicallyQuantizableLinear : public Linear {
public:
  using Linear::Linear;
  std::string type_name() const override {
    return "NonDynamicallyQuantizableLinear";
  }
};

struct MultiheadAttentionOptions {
  double dropout = 0.0; ///< on the attention weights, in training
  bool bias = true;     ///< in_proj_bias and out_proj.bias
  bool batch_first =
      false; ///< inputs and output are [N, L, E] instead of [L, N, E]
};

/// torch.nn.MultiheadAttention (kdim = vdim = embed_dim, add_bias_kv and
/// add_zero_attn off). Parameters, with PyTorch's names and initialisation:
/// in_proj_weight [3E, E] (xavier_uniform_), in_proj_bias [3E] (zeros),
/// out_proj.weight [E, E], out_proj.bias [E] (zeros). `auto [out, weights] =
/// mha.forward(x, x, x, {.need_weights = false});`
class MultiheadAttention : public Module {
public:
  MultiheadAttention(std::int64_t embed_dim, std::int64_t num_heads,
                     MultiheadAttentionOptions options = {});
  std::pair<Tensor, Tensor>
  forward(const Tensor &query, const Tensor &key, const Tensor &value,
          const functional::MultiheadAttentionForwardOptions &options = {});
  /// Self-attention, the output only: forward(x, x, x, {.need_weights =
  /// false}).first.
  Tensor forward(const Tensor &x) override;
  std::string type_name() const override { return "MultiheadAttention"; }

  std::int64_t embed_dim, num_heads, head_dim;
  MultiheadAttentionOptions options;
  Tensor in_proj_weight, in_proj_bias;
  NonDynamicallyQuantizableLinear out_proj;
};

} // namespace kindling::nn
