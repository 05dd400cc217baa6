// ch12.ex1 — the causal mask: a token may look at itself and at the tokens before it, never at the
// ones after it, so that predicting token t+1 cannot peek at it.
//
// text::detail::causal_mask (kindling/text/pieces.hpp): scaled_dot_product_attention calls it for
// is_causal (offset 0) and CausalSelfAttention::forward_cached for the new tokens that follow a KV
// cache (offset = the cached length); both check it is a bool [L, S].
#include "kindling/text/pieces.hpp"

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::text::detail {

Tensor causal_mask(std::int64_t L, std::int64_t S, std::int64_t offset) {
  // BEGIN SOLUTION ex1: key j is allowed for query i when j <= offset + i
  const TensorOptions int64{.dtype = kInt64};
  Tensor key_pos = arange(0, S, 1, int64).unsqueeze(0);                   // [1, S]
  Tensor query_pos = arange(offset, offset + L, 1, int64).unsqueeze(1);  // [L, 1]
  return key_pos <= query_pos;                                            // [L, S], broadcast
  // END SOLUTION
}

}  // namespace kindling::text::detail
