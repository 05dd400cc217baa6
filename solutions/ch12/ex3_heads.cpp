// ch12.ex3 — multi-head attention as reshapes: n_head small attentions side by side cost no more
// than one big one, because splitting the channels into heads is a view, not a copy.
//
// text::detail::split_heads and merge_heads (kindling/text/pieces.hpp): CausalSelfAttention splits
// c_attn's q, k and v into heads, attends, and merges the heads before c_proj; it checks the shapes.
#include "kindling/text/pieces.hpp"

namespace kindling::text::detail {

Tensor split_heads(const Tensor& x, std::int64_t n_head) {
  // BEGIN SOLUTION ex3: [B, T, C] -> [B, T, nh, hs] (a view) -> [B, nh, T, hs] (a transpose)
  const std::int64_t B = x.size(0), T = x.size(1), hs = x.size(2) / n_head;
  // Splitting the last dim is a view even of c_attn's slices (their last dim is contiguous).
  return x.view({B, T, n_head, hs}).transpose(1, 2);
  // END SOLUTION
}

Tensor merge_heads(const Tensor& y) {
  // BEGIN SOLUTION ex3: [B, nh, T, hs] -> [B, T, nh, hs] -> [B, T, nh * hs]
  const std::int64_t B = y.size(0), nh = y.size(1), T = y.size(2), hs = y.size(3);
  // After the transpose the heads of a token are not adjacent in memory: reshape copies then.
  return y.transpose(1, 2).reshape({B, T, nh * hs});
  // END SOLUTION
}

}  // namespace kindling::text::detail
