// Chapter 1 — broadcasting: which shape does a + b have, and what if the shapes do not fit?
#include <kindling/tensor.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  // [snippet: broadcast]
  kd::Tensor col = kd::arange(3).view({3, 1});  // [3, 1]
  kd::Tensor row = kd::arange(4);               // [4] -> treated as [1, 4]
  kd::Tensor grid = col * 10 + row;             // [3, 4]: each size-1 dim is stretched
  // [end]
  std::cout << "col * 10 + row:\n" << grid << "\n";
  std::cout << "broadcast_shapes([8, 1, 6, 1], [7, 1, 5]) = "
            << kd::shape_str(kd::broadcast_shapes({8, 1, 6, 1}, {7, 1, 5})) << "\n";

  // [snippet: expand]
  kd::Tensor stretched = col.expand({3, 4});  // what broadcasting does, as a view: stride 0
  // [end]
  std::cout << "col.expand({3, 4}): strides " << kd::shape_str(stretched.strides()) << ", shares storage "
            << std::boolalpha << stretched.shares_storage(col) << "\n";

  // [snippet: mismatch]
  try {
    kd::Tensor bad = kd::ones({2, 3}) + kd::ones({3, 2});
  } catch (const kd::ShapeError& e) {
    std::cout << "ShapeError: " << e.what() << "\n";
  }
  // [end]
}
