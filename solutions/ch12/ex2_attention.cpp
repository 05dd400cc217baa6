// ch12.ex2 — scaled dot-product attention: every query scores every key (a dot product, scaled by
// 1/√E so the softmax does not saturate as E grows), the scores become weights (softmax over the
// keys, masked positions -inf so their weight is exactly 0), and the output is the weighted sum of
// the values.
//
// text::detail::attention (kindling/text/pieces.hpp): nn::functional::scaled_dot_product_attention
// checks q, k, v and the mask, calls it, and checks the output's shape; the GPT's
// CausalSelfAttention goes through it.
#include "kindling/text/pieces.hpp"

#include <cmath>
#include <limits>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::text::detail {

Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                 bool training) {
  // BEGIN SOLUTION ex2: softmax(q kᵀ / √E + mask) v, from recorded ops
  // scores: [*, L, S]. q is scaled before the product, as PyTorch does (fewer multiplications).
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  Tensor scores = matmul(q * scale, k.transpose(-2, -1));
  if (mask.defined()) {
    // bool: true = may attend, so the positions that are false get -inf; float: added.
    scores = mask.dtype() == kBool
                 ? masked_fill(scores, mask == 0, -std::numeric_limits<double>::infinity())
                 : scores + mask;
  }
  Tensor weights = softmax(scores, -1);  // [*, L, S], each row sums to 1
  if (dropout_p > 0.0 && training) weights = nn::functional::dropout(weights, dropout_p, true);
  return matmul(weights, v);  // [*, L, Ev]
  // END SOLUTION
}

}  // namespace kindling::text::detail
