// Chapter 1 — reductions along a dim, and why keepdim matters.
#include <kindling/tensor.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  // [snippet: sum]
  kd::Tensor x = kd::arange(6).to(kd::kFloat32).view({2, 3});
  kd::Tensor total = x.sum();                            // 0-d
  kd::Tensor per_col = x.sum(0);                         // [3]: dim 0 disappears
  kd::Tensor per_row = x.sum(1);                         // [2]
  kd::Tensor per_row_kept = x.sum(1, /*keepdim=*/true);  // [2, 1]
  // [end]
  std::cout << "x:\n"
            << x << "\nx.sum() = " << total << "\nx.sum(0) = " << per_col
            << "\nx.sum(1) = " << per_row << "\nx.sum(1, keepdim=true) =\n"
            << per_row_kept << "\n";

  // [snippet: keepdim]
  kd::Tensor shares = x / x.sum(1, /*keepdim=*/true);  // [2, 3] / [2, 1]
  // [end]
  std::cout << "x / x.sum(1, keepdim=true):\n" << shares << "\n";
  try {
    kd::Tensor wrong = x / x.sum(1);  // [2, 3] / [2]: the 2 lines up with the 3
  } catch (const kd::ShapeError& e) {
    std::cout << "without keepdim: ShapeError: " << e.what() << "\n";
  }

  // [snippet: max]
  auto [values, indices] = x.max(1);  // the largest value of each row, and where
  // [end]
  std::cout << "x.max(1): values " << values << ", indices " << indices
            << "\nx.argmax() = " << x.argmax() << ", x.mean(0) = " << x.mean(0) << "\n";
}
