// The GPT-2-style model: nanoGPT's modules, composed of nn layers and recorded
// ops.
#include "kindling/text/gpt.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/text/attention.hpp"
#include "kindling/train/losses.hpp"
#include "kindling/text/pieces.hpp"

namespace kindling::text {

namespace F = nn::functional;

LayerNorm::LayerNorm(std::int64_t ndim, bool has_bias) {
  weight = register_parameter("weight", ones({ndim}));
  if (has_bias)
    bias = register_parameter("bias", zeros({ndim}));
}
Tensor LayerNorm::forward(const Tensor &x) {
  return F::layer_norm(x, {weight.size(0)}, weight, bias, 1e-5);
}

CausalSelfAttention::CausalSelfAttention(const GPTConfig &c)
    : n_head(c.n_head), n_embd(c.n_embd), dropout(c.dropout) {
  if (c.n_head <= 0 || c.n_embd % c.n_head != 0) {
    throw ValueError("CausalSelfAttention: n_embd " + std::to_string(c.n_embd) +
                     " must be a multiple of n_head " +
                     std::to_string(c.n_head));
  }
  c_attn = register_module(
      "c_attn", std::make_shared<nn::Linear>(c.n_embd, 3 * c.n_embd,
                                             nn::LinearOptions{c.bias}));
  c_proj = register_module(
      "c_proj", std::make_shared<nn::Linear>(c.n_embd, c.n_embd,
                                             nn::LinearOptions{c.bias}));
  attn_dropout =
      register_module("attn_dropout", std::make_shared<nn::Dropout>(c.dropout));
  resid_dropout = register_module("resid_dropout",
                                  std::make_shared<nn::Dropout>(c.dropout));
}

namespace {
// split_heads (chapter 12, exercise 3) with its shape checked: [B, T, C] -> [B, nh, T, hs].
Tensor heads_of(const Tensor &x, std::int64_t n_head) {
  Tensor h = detail::split_heads(x, n_head);
  const std::int64_t B = x.size(0), T = x.size(1), hs = x.size(2) / n_head;
  if (h.dim() != 4 || h.size(0) != B || h.size(1) != n_head || h.size(2) != T ||
      h.size(3) != hs) {
    throw ValueError("CausalSelfAttention: split_heads of [" + std::to_string(B) +
                     ", " + std::to_string(T) + ", " + std::to_string(x.size(2)) +
                     "] into " + std::to_string(n_head) +
                     " heads returned the wrong shape; expected [B, n_head, T, "
                     "C / n_head] (exercise ch12.ex3)");
  }
  return h;
}
// merge_heads (exercise 3) with its shape checked: [B, nh, T, hs] -> [B, T, C].
Tensor merged(const Tensor &y) {
  Tensor m = detail::merge_heads(y);
  if (m.dim() != 3 || m.size(0) != y.size(0) || m.size(1) != y.size(2) ||
      m.size(2) != y.size(1) * y.size(3)) {
    throw ValueError("CausalSelfAttention: merge_heads returned the wrong "
                     "shape; expected [B, T, n_head * hs] (exercise ch12.ex3)");
  }
  return m;
}
} // namespace

// [snippet: attention-forward]
Tensor CausalSelfAttention::forward(const Tensor &x) {
  const std::int64_t C = x.size(2);
  Tensor qkv = (*c_attn)(x); // [B, T, 3C]
  // Each of q, k, v: [B, T, C] -> [B, n_head, T, hs] (views).
  Tensor q = heads_of(qkv.narrow(2, 0, C), n_head);
  Tensor k = heads_of(qkv.narrow(2, C, C), n_head);
  Tensor v = heads_of(qkv.narrow(2, 2 * C, C), n_head);
  Tensor y = F::scaled_dot_product_attention(q, k, v, Tensor(), dropout,
                                             /*is_causal=*/true, is_training());
  return (*resid_dropout)((*c_proj)(merged(y))); // heads side by side again
}
// [end]

Tensor CausalSelfAttention::forward_cached(const Tensor &x, Tensor &k_cache,
                                           Tensor &v_cache,
                                           std::int64_t start) {
  const std::int64_t T = x.size(1), C = x.size(2);
  Tensor qkv = (*c_attn)(x);
  Tensor q = heads_of(qkv.narrow(2, 0, C), n_head);
  Tensor k = heads_of(qkv.narrow(2, C, C), n_head);
  Tensor v = heads_of(qkv.narrow(2, 2 * C, C), n_head);
  k_cache = k_cache.defined() ? cat({k_cache, k}, 2)
                              : k.contiguous(); // [B, nh, start + T, hs]
  v_cache = v_cache.defined() ? cat({v_cache, v}, 2) : v.contiguous();
  const std::int64_t S = k_cache.size(2);
  // New query i sits at position start + i and may attend keys 0 .. start + i
  // (true = may attend; exercise 1 with an offset).
  Tensor allowed = detail::causal_mask(T, S, start);
  if (allowed.dtype() != kBool || allowed.dim() != 2 || allowed.size(0) != T ||
      allowed.size(1) != S) {
    throw ValueError("CausalSelfAttention: causal_mask(" + std::to_string(T) +
                     ", " + std::to_string(S) + ", " + std::to_string(start) +
                     ") must be bool [L, S] (exercise ch12.ex1)");
  }
  Tensor y = F::scaled_dot_product_attention(q, k_cache, v_cache, allowed,
                                             dropout, false, is_training());
  return (*resid_dropout)((*c_proj)(merged(y)));
}

MLP::MLP(const GPTConfig &c) {
  c_fc = register_module(
      "c_fc", std::make_shared<nn::Linear>(c.n_embd, 4 * c.n_embd,
                                           nn::LinearOptions{c.bias}));
  c_proj = register_module(
      "c_proj", std::make_shared<nn::Linear>(4 * c.n_embd, c.n_embd,
                                             nn::LinearOptions{c.bias}));
  dropout =
      register_module("dropout", std::make_shared<nn::Dropout>(c.dropout));
}
Tensor MLP::forward(const Tensor &x) {
  return (*dropout)((*c_proj)(F::gelu((*c_fc)(x), "tanh")));
}

Block::Block(const GPTConfig &c) {
  ln_1 = register_module("ln_1", std::make_shared<LayerNorm>(c.n_embd, c.bias));
  attn = register_module("attn", std::make_shared<CausalSelfAttention>(c));
  ln_2 = register_module("ln_2", std::make_shared<LayerNorm>(c.n_embd, c.bias));
  mlp = register_module("mlp", std::make_shared<MLP>(c));
}
// [snippet: block]
Tensor Block::forward(const Tensor &x) {
  Tensor y = x + (*attn)((*ln_1)(x));
  return y + (*mlp)((*ln_2)(y));
}
// [end]

Tensor Block::forward_cached(const Tensor &x, Tensor &k_cache, Tensor &v_cache,
                             std::int64_t start) {
  Tensor y = x + attn->forward_cached((*ln_1)(x), k_cache, v_cache, start);
  return y + (*mlp)((*ln_2)(y));
}

namespace {
struct Transformer : nn::Module {
  std::string type_name() const override { return "ModuleDict"; }
};
} // namespace

GPT::GPT(GPTConfig c) : config(c) {
  if (c.vocab_size <= 0 || c.block_size <= 0 || c.n_layer < 0) {
    throw ValueError(
        "GPT: vocab_size and block_size must be positive and n_layer >= 0");
  }
  transformer = register_module("transformer", std::make_shared<Transformer>());
  wte = transformer->register_module(
      "wte", std::make_shared<nn::Embedding>(c.vocab_size, c.n_embd));
  wpe = transformer->register_module(
      "wpe", std::make_shared<nn::Embedding>(c.block_size, c.n_embd));
  drop = transformer->register_module("drop",
                                      std::make_shared<nn::Dropout>(c.dropout));
  h = transformer->register_module("h", std::make_shared<nn::ModuleList>());
  for (std::int64_t i = 0; i < c.n_layer; ++i) {
    blocks.push_back(std::make_shared<Block>(c));
    h->append(blocks.back());
  }
  ln_f = transformer->register_module(
      "ln_f", std::make_shared<LayerNorm>(c.n_embd, c.bias));
  // nanoGPT's initialisation.
  for (auto &[name, p] : named_parameters()) {
    const bool is_bias =
        name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0;
    if (name.find(".ln_") != std::string::npos)
      continue; // LayerNorms keep ones and zeros
    if (is_bias) {
      nn::init::zeros_(p);
    } else if (name.size() >= 13 &&
               name.compare(name.size() - 13, 13, "c_proj.weight") == 0) {
      nn::init::normal_(p, 0.0,
                        0.02 / std::sqrt(2.0 * static_cast<double>(c.n_layer)));
    } else {
      nn::init::normal_(p, 0.0, 0.02);
    }
  }
}

Tensor GPT::forward(const Tensor &idx) {
  if (idx.dim() != 2 || idx.dtype() != kInt64) {
    throw ShapeError(
        std::string(
            "GPT: expected idx to be [batch, time] int64 token ids but got ") +
        dtype_name(idx.dtype()) + " of " + std::to_string(idx.dim()) +
        " dims. Hint: a single sequence is idx.unsqueeze(0).");
  }
  const std::int64_t T = idx.size(1);
  if (T > config.block_size) {
    throw ValueError("GPT: cannot forward a sequence of length " +
                     std::to_string(T) + ", block_size is only " +
                     std::to_string(config.block_size) +
                     ". Hint: crop to the last block_size tokens.");
  }
  Tensor pos = arange(0, T, 1, TensorOptions{.dtype = kInt64});
  Tensor x = (*drop)((*wte)(idx) + (*wpe)(pos)); // [B, T, C] + [T, C]
  for (auto &b : blocks)
    x = (*b)(x);
  x = (*ln_f)(x);
  return matmul(x,
                wte->weight.t()); // lm_head tied to wte: [B, T, C] @ [C, vocab]
}

std::pair<Tensor, Tensor> GPT::forward(const Tensor &idx,
                                       const Tensor &targets) {
  Tensor logits = forward(idx);
  Tensor loss = nn::functional::cross_entropy(
      logits.view({-1, logits.size(-1)}), targets.reshape({-1}));
  return {logits, loss};
}

Tensor GPT::forward_cached(const Tensor &idx, KVCache &cache) {
  const std::int64_t T = idx.size(1), start = cache.length;
  if (start + T > config.block_size) {
    throw ValueError(
        "GPT: the cache holds " + std::to_string(start) + " tokens and " +
        std::to_string(T) + " more would pass block_size " +
        std::to_string(config.block_size) +
        ". Hint: start a new cache from the last block_size tokens.");
  }
  cache.k.resize(blocks.size());
  cache.v.resize(blocks.size());
  Tensor pos = arange(start, start + T, 1, TensorOptions{.dtype = kInt64});
  Tensor x = (*drop)((*wte)(idx) + (*wpe)(pos));
  for (std::size_t i = 0; i < blocks.size(); ++i)
    x = blocks[i]->forward_cached(x, cache.k[i], cache.v[i], start);
  cache.length = start + T;
  return matmul((*ln_f)(x), wte->weight.t());
}

namespace {
// One token from one row of logits: the most likely one for temperature 0 (the
// first on a tie); otherwise the probabilities of exercise 5 (temperature, top-k,
// top-p), checked, and a draw u ~ U[0, 1) against their running sum (inverse CDF).
std::int64_t sample_row(const std::vector<double> &logits,
                        const GenerateOptions &o, Generator *gen) {
  const std::size_t V = logits.size();
  if (o.temperature == 0.0)
    return static_cast<std::int64_t>(
        std::max_element(logits.begin(), logits.end()) - logits.begin());
  const std::vector<double> p =
      detail::next_token_probs(logits, o.temperature, o.top_k, o.top_p);
  double total = 0;
  bool ok = p.size() == V;
  for (std::size_t i = 0; ok && i < V; ++i) {
    ok = p[i] >= 0.0 && std::isfinite(p[i]);
    total += p[i];
  }
  if (!ok || std::abs(total - 1.0) > 1e-6) {
    throw ValueError("generate: next_token_probs returned " +
                     std::to_string(p.size()) + " values adding up to " +
                     std::to_string(total) + " for " + std::to_string(V) +
                     " logits; expected " + std::to_string(V) +
                     " probabilities >= 0 adding up to 1 (exercise ch12.ex5)");
  }
  const double u =
      rand({1}, TensorOptions{.dtype = kFloat64}, gen).item<double>() * total;
  double acc = 0;
  std::size_t last = 0; // the last token with a probability, for rounding at the end
  for (std::size_t i = 0; i < V; ++i) {
    if (p[i] <= 0.0)
      continue;
    last = i;
    acc += p[i];
    if (u < acc)
      return static_cast<std::int64_t>(i);
  }
  return static_cast<std::int64_t>(last);
}
} // namespace

Tensor generate(GPT &model, const Tensor &idx_in, std::int64_t max_new_tokens,
                const GenerateOptions &o, Generator *gen) {
  if (o.temperature < 0.0 || o.top_p <= 0.0 || o.top_p > 1.0 || o.top_k < 0) {
    throw ValueError(
        "generate: need temperature >= 0, 0 < top_p <= 1 and top_k >= 0");
  }
  NoGradGuard no_grad;
  Tensor idx = idx_in;
  const std::int64_t B = idx.size(0), ctx = model.config.block_size;
  KVCache cache;
  for (std::int64_t step = 0; step < max_new_tokens; ++step) {
    Tensor logits;
    if (o.use_cache && cache.length > 0 && cache.length < ctx) {
      logits = model.forward_cached(idx.narrow(1, idx.size(1) - 1, 1), cache);
    } else { // the first step, no cache, or a full context: (re)start from the
             // last block_size tokens
      const std::int64_t T = std::min(idx.size(1), ctx);
      Tensor cond = idx.narrow(1, idx.size(1) - T, T);
      if (o.use_cache) {
        cache = KVCache{};
        logits = model.forward_cached(cond, cache);
      } else {
        logits = model(cond);
      }
    }
    Tensor last = logits.narrow(1, logits.size(1) - 1, 1)
                      .reshape({B, -1})
                      .to(kFloat64)
                      .contiguous();
    std::vector<double> all = last.to_vector<double>();
    const std::size_t V = static_cast<std::size_t>(last.size(1));
    std::vector<std::int64_t> next(static_cast<std::size_t>(B));
    for (std::int64_t b = 0; b < B; ++b) {
      next[static_cast<std::size_t>(b)] = sample_row(
          std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(b * V),
                              all.begin() +
                                  static_cast<std::ptrdiff_t>((b + 1) * V)),
          o, gen);
    }
    idx = cat({idx, tensor(next, {B, 1})}, 1);
  }
  return idx;
}

} // namespace kindling::text
