// A "library call" submission: attention handed back to the library's public
// scaled_dot_product_attention, which calls this piece again. Must earn nothing.
#include "kindling/text/attention.hpp"
#include "kindling/text/pieces.hpp"

namespace kindling::text::detail {
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                 bool training) {
  return nn::functional::scaled_dot_product_attention(q, k, v, mask, dropout_p, false, training);
}
}  // namespace kindling::text::detail
