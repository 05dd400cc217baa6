#pragma once
/// @file
/// Chapter 12's exercise pieces: the parts of the text layer that *you* write (exercises/ch12/),
/// defined in your `exercises/ch12/exK_*.cpp` or the reference `solutions/ch12/exK_*.cpp`.
///
///   ex1  text::detail::causal_mask         which keys each query may see
///   ex2  text::detail::attention           softmax(q kᵀ / √E + mask) v
///   ex3  text::detail::split_heads / merge_heads    multi-head attention as reshapes
///   ex4  text::detail::most_frequent_pair / merge_pair    a byte-pair-encoding merge step
///   ex5  text::detail::next_token_probs    temperature, top-k and top-p
///
/// The library does the checking around them: scaled_dot_product_attention validates q, k, v and
/// the mask before it calls ex2 (and ex1 for is_causal) and checks the shapes they return;
/// CausalSelfAttention checks ex3's shapes; ByteBPE::train stops when ex4 finds no pair that occurs
/// twice and checks that a merge shortened the ids; generate() checks that ex5 returned a
/// probability for every token, none negative, adding up to 1.
#include <cstdint>
#include <vector>

#include "kindling/tensor/error.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::text::detail {

// [snippet: causal-mask]
/// A bool [L, S] tensor, true where query i may attend key j. The L queries are the
/// *last* tokens seen so far: query i sits at position `offset + i`, key j at
/// position j; a query may see itself and every earlier position (j <= offset + i),
/// nothing after. offset = 0 is the usual training mask (the lower triangle with its
/// diagonal when L == S); a KV cache holding `offset` earlier tokens asks for
/// offset = S - L.
Tensor causal_mask(std::int64_t L, std::int64_t S, std::int64_t offset);
// [end]

/// Scaled dot-product attention, the arguments already checked: q [*, L, E], k [*, S, E],
/// v [*, S, Ev] → [*, L, Ev] = softmax(q kᵀ / √E + mask) v, softmax over the keys (the last dim).
/// `mask` (its last two dims [L, S], broadcast over the leading ones) is undefined (no mask), bool
/// (true = may attend; where it is false the score becomes -inf, so the weight is exactly 0) or
/// floating point (added to the scores). With dropout_p > 0 and training, the weights go through
/// dropout(weights, dropout_p) before they multiply v. Built from recorded ops (matmul, softmax,
/// masked_fill, ...), so autograd differentiates it: no backward of its own.
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                 bool training);

/// [B, T, C] → [B, n_head, T, C / n_head]: head h gets the channels h·hs ... (h+1)·hs − 1 of every
/// token (hs = C / n_head, C a multiple of n_head). x may be a non-contiguous view (a slice of
/// c_attn's output); the result should be a view too where it can (no copy).
Tensor split_heads(const Tensor& x, std::int64_t n_head);
/// The inverse: [B, n_head, T, hs] (any strides) → [B, T, n_head·hs], the heads side by side again.
Tensor merge_heads(const Tensor& y);

/// The most frequent adjacent pair of `ids` and how often it occurs (every position i counts the
/// pair (ids[i], ids[i+1]), overlapping ones too: "aaa" has (a, a) twice). Ties go to the smallest
/// pair (compared first by its first id, then by its second). Fewer than 2 ids: count 0.
struct PairCount {
  std::int64_t first = -1, second = -1, count = 0;
};
PairCount most_frequent_pair(const std::vector<std::int64_t>& ids);

/// `ids` with every occurrence of the pair (first, second) replaced by `new_id`, scanning left to
/// right: a match consumes both of its ids, so "a a a" with (a, a) becomes "new a".
std::vector<std::int64_t> merge_pair(const std::vector<std::int64_t>& ids, std::int64_t first,
                                     std::int64_t second, std::int64_t new_id);

/// The probabilities generate() draws the next token from, given one row of logits (V > 0 values):
/// divide the logits by `temperature` (> 0); keep only the `top_k` largest (top_k = 0 or >= V:
/// all; ties at the boundary: the earlier token); softmax over the kept ones; then, if top_p < 1,
/// keep the fewest most probable of them whose probabilities add up to at least top_p (at least
/// one) and renormalise. Every token not kept gets exactly 0. Returns V probabilities in
/// vocabulary order.
std::vector<double> next_token_probs(const std::vector<double>& logits, double temperature, std::int64_t top_k,
                                     double top_p);

}  // namespace kindling::text::detail
