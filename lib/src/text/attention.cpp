// Scaled dot-product attention and multi-head attention, composed of recorded
// ops (matmul, softmax, masked_fill, dropout, linear), so autograd
// differentiates them with no backward of their own.
#include "kindling/text/attention.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "kindling/autograd/engine.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/tensor/shape.hpp"
#include "kindling/text/pieces.hpp"

namespace kindling::nn::functional {
namespace {

std::string shape_str(const Tensor &t) { return kindling::shape_str(t.shape()); }

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// t's dims before the last two: the batch (and head) dims attention broadcasts.
Shape batch_dims(const Tensor &t) {
  const Shape &s = t.shape();
  return Shape(s.begin(), s.end() - 2);
}

// A bool mask (true = may not attend) as an additive float mask: 0 where
// allowed, -inf elsewhere.
Tensor additive_mask(const Tensor &mask, DType dtype) {
  if (mask.dtype() == kBool)
    return masked_fill(zeros(mask.shape(), TensorOptions{.dtype = dtype}), mask,
                       kNegInf);
  return mask.to(dtype);  // a float64 mask on float32 scores, as PyTorch allows
}

} // namespace

Tensor scaled_dot_product_attention(const Tensor &q, const Tensor &k,
                                    const Tensor &v, const Tensor &attn_mask,
                                    double dropout_p, bool is_causal,
                                    bool training) {
  const char *op = "scaled_dot_product_attention";
  if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2) {
    throw ShapeError(
        std::string(op) +
        ": q, k and v need at least 2 dims ([*, seq, head_dim]) but got q " +
        shape_str(q) + ", k " + shape_str(k) + ", v " + shape_str(v) +
        ". Hint: attention works on [batch, heads, seq, head_dim].");
  }
  if (q.size(-1) != k.size(-1) || k.size(-2) != v.size(-2)) {
    throw ShapeError(std::string(op) + ": q " + shape_str(q) + ", k " +
                     shape_str(k) + ", v " + shape_str(v) +
                     " do not fit: q and k need the same last dim (head_dim), "
                     "k and v the same sequence "
                     "length (dim -2). Hint: check the head split (view then "
                     "transpose(1, 2)).");
  }
  if (!q.is_floating_point()) {
    throw DTypeError(std::string(op) +
                     ": expected floating-point q, k, v but got " +
                     dtype_name(q.dtype()));
  }
  if (is_causal && attn_mask.defined()) {
    throw ValueError(
        std::string(op) +
        ": is_causal and attn_mask were both given. Hint: pass one; fold the "
        "causal mask into attn_mask if you need both.");
  }
  if (dropout_p < 0.0 || dropout_p > 1.0) {
    throw ValueError(std::string(op) +
                     ": dropout_p must be in [0, 1] but got " +
                     std::to_string(dropout_p));
  }
  const std::int64_t L = q.size(-2), S = k.size(-2);
  // The scores q kᵀ: [*batch, L, S], q's and k's batch dims broadcast; the
  // output [*batch', L, Ev] broadcasts v's in too.
  Shape scores = broadcast_shapes(batch_dims(q), batch_dims(k), op);
  Shape expected = broadcast_shapes(scores, batch_dims(v), op);
  scores.push_back(L);
  scores.push_back(S);
  expected.push_back(L);
  expected.push_back(v.size(-1));
  Tensor mask;
  if (is_causal) {
    // Position i sees positions j <= i (chapter 12, exercise 1).
    mask = text::detail::causal_mask(L, S, 0);
    if (mask.dtype() != kBool || mask.dim() != 2 || mask.size(0) != L ||
        mask.size(1) != S) {
      throw ValueError(std::string(op) + ": causal_mask(" + std::to_string(L) +
                       ", " + std::to_string(S) + ", 0) returned " +
                       dtype_name(mask.dtype()) + " " + shape_str(mask) +
                       "; expected bool [L, S] (exercise ch12.ex1)");
    }
  } else if (attn_mask.defined()) {
    if (attn_mask.dtype() != kBool && !attn_mask.is_floating_point()) {
      throw DTypeError(
          std::string(op) +
          ": attn_mask must be bool (true = may attend) or floating point "
          "(added to the scores) but got " +
          dtype_name(attn_mask.dtype()));
    }
    // The mask is added to the scores, which keep their shape: it may
    // broadcast to them, not enlarge them.
    if (!autograd::is_expandable_to(attn_mask.shape(), scores)) {
      throw ShapeError(
          std::string(op) + ": attn_mask " + shape_str(attn_mask) +
          " does not broadcast to the scores' " + kindling::shape_str(scores) +
          " ([*batch, L, S]: L = query length, S = key length). Hint: a key "
          "padding mask is [N, 1, 1, S]; a mask for every query [L, S].");
    }
    mask = attn_mask;
  }
  // softmax(q kᵀ/√E + mask) v (chapter 12, exercise 2).
  Tensor out = text::detail::attention(q, k, v, mask, dropout_p, training);
  if (out.shape() != expected) {
    throw ValueError(std::string(op) + ": attention returned " +
                     shape_str(out) + " for q " + shape_str(q) + ", k " +
                     shape_str(k) + ", v " + shape_str(v) + "; expected " +
                     kindling::shape_str(expected) + " (exercise ch12.ex2)");
  }
  return out;
}

std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor &query_in, const Tensor &key_in, const Tensor &value_in,
    std::int64_t embed_dim, std::int64_t num_heads,
    const Tensor &in_proj_weight, const Tensor &in_proj_bias, double dropout_p,
    const Tensor &out_proj_weight, const Tensor &out_proj_bias, bool training,
    const MultiheadAttentionForwardOptions &o) {
  const std::string op = "multi_head_attention_forward";
  const bool batched = query_in.dim() == 3;
  if (query_in.dim() != 2 && query_in.dim() != 3) {
    throw ShapeError(op +
                     ": query should be [L, E] (unbatched) or [L, N, E] ([N, "
                     "L, E] with batch_first) "
                     "but got " +
                     shape_str(query_in));
  }
  if (key_in.dim() != query_in.dim() || value_in.dim() != query_in.dim()) {
    throw ShapeError(
        op + ": query " + shape_str(query_in) + ", key " + shape_str(key_in) +
        " and value " + shape_str(value_in) +
        " must have the same number of dims (2 unbatched, 3 batched)");
  }
  if (!(key_in.shape() == value_in.shape())) {
    throw ShapeError(op + ": key shape " + shape_str(key_in) +
                     " does not match value shape " + shape_str(value_in));
  }
  Tensor query = batched ? query_in : query_in.unsqueeze(1);
  Tensor key = batched ? key_in : key_in.unsqueeze(1);
  Tensor value = batched ? value_in : value_in.unsqueeze(1);
  Tensor kpm = o.key_padding_mask;
  if (kpm.defined() && kpm.dim() != (batched ? 2 : 1)) {
    throw ShapeError(op + ": key_padding_mask " + shape_str(kpm) +
                     " should be " + (batched ? "[N, S]" : "[S]"));
  }
  if (kpm.defined() && !batched)
    kpm = kpm.unsqueeze(0);
  const std::int64_t L = query.size(0), N = query.size(1), E = query.size(2),
                     S = key.size(0);
  if (E != embed_dim || key.size(2) != embed_dim) {
    throw ShapeError(
        op + ": expected embedding dim " + std::to_string(embed_dim) +
        " but got query " + shape_str(query_in) + ", key " + shape_str(key_in) +
        ". Hint: with batch_first=false the layout is [seq, batch, embed].");
  }
  if (key.size(1) != N) {
    throw ShapeError(op + ": query " + shape_str(query_in) + " and key " +
                     shape_str(key_in) + " have different batch sizes");
  }
  if (num_heads <= 0 || E % num_heads != 0) {
    throw ValueError(op + ": embed_dim " + std::to_string(E) +
                     " not divisible by num_heads " +
                     std::to_string(num_heads));
  }
  const std::int64_t hd = E / num_heads;
  // In-projection: one [3E, E] weight split into q, k, v rows.
  Tensor bq, bk, bv;
  if (in_proj_bias.defined()) {
    bq = in_proj_bias.narrow(0, 0, E), bk = in_proj_bias.narrow(0, E, E),
    bv = in_proj_bias.narrow(0, 2 * E, E);
  }
  Tensor q = linear(query, in_proj_weight.narrow(0, 0, E), bq);
  Tensor k = linear(key, in_proj_weight.narrow(0, E, E), bk);
  Tensor v = linear(value, in_proj_weight.narrow(0, 2 * E, E), bv);

  Tensor mask = o.attn_mask;
  if (mask.defined()) {
    if (mask.dtype() == kUInt8)
      mask = mask.to(kBool);
    if (mask.dtype() != kBool && !mask.is_floating_point()) {
      throw DTypeError(
          op + ": attn_mask must be bool, uint8 or floating point but got " +
          dtype_name(mask.dtype()));
    }
    if (mask.dim() == 2) {
      if (mask.size(0) != L || mask.size(1) != S) {
        throw ShapeError(op + ": the 2-D attn_mask is " + shape_str(mask) +
                         " but should be [" + std::to_string(L) + ", " +
                         std::to_string(S) + "] (query length, key length)");
      }
      mask = mask.unsqueeze(0);
    } else if (mask.dim() == 3) {
      if (mask.size(0) != N * num_heads || mask.size(1) != L ||
          mask.size(2) != S) {
        throw ShapeError(op + ": the 3-D attn_mask is " + shape_str(mask) +
                         " but should be [" + std::to_string(N * num_heads) +
                         ", " + std::to_string(L) + ", " + std::to_string(S) +
                         "] (batch·num_heads, query length, key length)");
      }
    } else {
      throw ShapeError(op + ": attn_mask " + shape_str(mask) +
                       " should be 2-D [L, S] or 3-D [N·heads, L, S]");
    }
  }
  if (kpm.defined()) {
    if (kpm.size(0) != N || kpm.size(1) != S) {
      throw ShapeError(op + ": key_padding_mask " +
                       shape_str(o.key_padding_mask) + " should be [" +
                       std::to_string(N) + ", " + std::to_string(S) +
                       "] (batch, key length)");
    }
    if (kpm.dtype() != kBool && !kpm.is_floating_point()) {
      throw DTypeError(op +
                       ": only bool and floating-point key_padding_mask are "
                       "supported, not " +
                       dtype_name(kpm.dtype()));
    }
    if (kpm.is_floating_point() && mask.defined()) {
      throw ValueError(op + ": a floating-point key_padding_mask together with "
                            "attn_mask is not supported. "
                            "Hint: pass a bool key_padding_mask, or add it "
                            "into a 3-D float attn_mask yourself.");
    }
    // [N, S] -> [N·heads, 1, S], batch-major like the heads below.
    Tensor k3 = kpm.view({N, 1, 1, S})
                    .expand({N, num_heads, 1, S})
                    .reshape({N * num_heads, 1, S});
    if (!mask.defined())
      mask = k3;
    else
      mask = masked_fill(additive_mask(mask, q.dtype()), k3, kNegInf);
  }
  if (mask.defined())
    mask = additive_mask(mask, q.dtype());

  // [L, N, E] -> [N·heads, L, hd]: the heads are reshapes, nothing is copied
  // per head.
  q = q.contiguous().view({L, N * num_heads, hd}).transpose(0, 1);
  k = k.contiguous().view({S, N * num_heads, hd}).transpose(0, 1);
  v = v.contiguous().view({S, N * num_heads, hd}).transpose(0, 1);
  Tensor scores = matmul(q * (1.0 / std::sqrt(static_cast<double>(hd))),
                         k.transpose(-2, -1));
  if (mask.defined())
    scores = scores + mask;
  Tensor weights = kindling::softmax(scores, -1);
  if (dropout_p > 0.0 && training)
    weights = dropout(weights, dropout_p, true);
  Tensor out = matmul(weights, v); // [N·heads, L, hd]
  out = out.transpose(0, 1).contiguous().view({L * N, E});
  out = linear(out, out_proj_weight, out_proj_bias).view({L, N, E});
  Tensor w;
  if (o.need_weights) {
    w = weights.view({N, num_heads, L, S});
    if (o.average_attn_weights)
      w = w.sum(1) / static_cast<double>(num_heads);
    if (!batched)
      w = w.squeeze(0);
  }
  if (!batched)
    out = out.squeeze(1);
  return {out, w};
}

} // namespace kindling::nn::functional

namespace kindling::nn {

MultiheadAttention::MultiheadAttention(std::int64_t embed_dim_,
                                       std::int64_t num_heads_,
                                       MultiheadAttentionOptions options_)
    : embed_dim(embed_dim_), num_heads(num_heads_),
      head_dim(num_heads_ > 0 ? embed_dim_ / num_heads_ : 0), options(options_),
      out_proj(embed_dim_, embed_dim_, {.bias = options_.bias}) {
  if (num_heads <= 0 || embed_dim <= 0 || embed_dim % num_heads != 0) {
    throw ValueError("MultiheadAttention: embed_dim " +
                     std::to_string(embed_dim) +
                     " must be a positive "
                     "multiple of num_heads " +
                     std::to_string(num_heads));
  }
  // PyTorch's order: in_proj_weight, in_proj_bias, then out_proj's parameters.
  in_proj_weight =
      register_parameter("in_proj_weight", empty({3 * embed_dim, embed_dim}));
  init::xavier_uniform_(in_proj_weight);
  if (options.bias)
    in_proj_bias = register_parameter("in_proj_bias", zeros({3 * embed_dim}));
  register_module("out_proj", out_proj);
  if (options.bias)
    init::zeros_(out_proj.bias);
}

std::pair<Tensor, Tensor> MultiheadAttention::forward(
    const Tensor &query, const Tensor &key, const Tensor &value,
    const functional::MultiheadAttentionForwardOptions &o) {
  // batch_first: [N, L, E] is transposed to [L, N, E] and back (views, no
  // copies).
  const bool tr = options.batch_first && query.dim() == 3;
  auto [out, w] = functional::multi_head_attention_forward(
      tr ? query.transpose(0, 1) : query, tr ? key.transpose(0, 1) : key,
      tr ? value.transpose(0, 1) : value, embed_dim, num_heads, in_proj_weight,
      in_proj_bias, options.dropout, out_proj.weight, out_proj.bias,
      is_training(), o);
  return {tr ? out.transpose(0, 1) : out, w};
}

Tensor MultiheadAttention::forward(const Tensor &x) {
  return forward(x, x, x, {.need_weights = false}).first;
}

} // namespace kindling::nn
