// Multi-head attention is a reshape: c_attn's output split into heads (a view: no
// copy), attention per head in one batched call, and the heads merged again.
#include <iostream>

#include "common.hpp"

namespace {
std::string dims(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
void describe(const char* name, const kd::Tensor& t) {
  std::printf("%-24s shape %-14s strides %-16s contiguous: %s\n", name,
              dims(t.shape()).c_str(), dims(t.strides()).c_str(),
              t.is_contiguous() ? "yes" : "no");
}
}  // namespace

int main() {
  // [snippet: split]
  const std::int64_t B = 1, T = 3, C = 8, n_head = 2;  // head size hs = C / n_head = 4
  kd::Tensor qkv = kd::arange(0, B * T * 3 * C).view({B, T, 3 * C}).to(kd::kFloat32);
  kd::Tensor q = qkv.narrow(2, 0, C);                           // [B, T, C], a slice
  kd::Tensor heads = kd::text::detail::split_heads(q, n_head);  // [B, n_head, T, hs]
  // [end]
  describe("qkv", qkv);
  describe("q = qkv.narrow(2, 0, C)", q);
  describe("split_heads(q, 2)", heads);
  std::printf("the heads share q's memory: %s\n",
              heads.raw_data_ptr() == q.raw_data_ptr() ? "yes" : "no");
  std::cout << "head 0 (channels 0-3 of each token):\n" << heads[0][0] << "\n";
  std::cout << "head 1 (channels 4-7):\n" << heads[0][1] << "\n";
  // [snippet: merge]
  kd::Tensor y = F::scaled_dot_product_attention(heads, heads, heads, {}, 0.0, true);
  kd::Tensor merged = kd::text::detail::merge_heads(y);  // [B, T, C]
  // [end]
  describe("attention of the heads", y);
  describe("merge_heads(...)", merged);
  std::printf("merge_heads(split_heads(q)) == q: %s\n",
              kd::equal(kd::text::detail::merge_heads(heads), q) ? "yes" : "no");
}
