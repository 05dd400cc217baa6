// Chapter 1 — more of PyTorch's tensor API: top-k, masks, running sums, Einstein sums.
#include <kindling/tensor.hpp>

#include <iostream>

namespace kd = kindling;
using kd::indexing::Slice;

int main() {
  // Scores of 2 samples over 4 classes (a model's logits).
  kd::Tensor scores = kd::tensor({{0.1, 2.0, -1.0, 0.7}, {1.5, -0.3, 1.5, 0.2}});
  std::cout << "scores:\n" << scores << "\n";

  // [snippet: topk]
  // the two best classes of each row: values and indices, [2, 2] each
  auto [best, classes] = scores.topk(2, /*dim=*/1);
  kd::Tensor order = scores.argsort(1, /*descending=*/true);
  // [end]
  std::cout << "scores.topk(2, 1): values\n" << best << "\nindices\n" << classes
            << "\n";
  std::cout << "scores.argsort(1, descending=true):\n" << order << "\n";

  // [snippet: masks]
  kd::Tensor positive = scores.index({scores > 0});  // x[x > 0]: a 1-d copy
  kd::Tensor clipped = scores.clone();
  clipped.index_put_({clipped < 0}, 0.0);  // x[x < 0] = 0, in place
  kd::Tensor rows = scores.index({kd::tensor({1, 0, 1})});  // x[idx]: rows 1, 0, 1
  // [end]
  std::cout << "scores[scores > 0] = " << positive << "\n";
  std::cout << "after clipped[clipped < 0] = 0:\n" << clipped << "\n";
  std::cout << "scores[[1, 0, 1]].shape = " << kd::shape_str(rows.shape()) << "\n";

  // [snippet: scans]
  kd::Tensor running = scores.cumsum(1);         // running totals along each row
  kd::Tensor log_norm = scores.logsumexp({1});   // log Σ exp, without overflow: [2]
  // [end]
  std::cout << "scores.cumsum(1):\n" << running << "\nscores.logsumexp(1) = "
            << log_norm << "\n";

  // [snippet: einsum]
  kd::Tensor a = kd::arange(12).to(kd::kFloat32).view({2, 2, 3});
  kd::Tensor b = kd::ones({2, 3, 2});
  kd::Tensor batched = kd::einsum("bij,bjk->bik", {a, b});  // the same as kd::bmm(a, b)
  kd::Tensor traces = kd::einsum("bii->b", {batched});      // the trace of each product
  // [end]
  std::cout << "einsum(\"bij,bjk->bik\") == bmm: " << std::boolalpha
            << kd::allclose(batched, kd::bmm(a, b)) << "\neinsum(\"bii->b\") = "
            << traces << "\n";
}
