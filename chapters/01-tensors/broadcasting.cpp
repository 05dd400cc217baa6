// Chapter 1 — broadcasting: which shape does a + b have, and what if the shapes do not
// fit? Records the stretched views in ch01_broadcasting.jsonl for the book's picture.
#include <kindling/tensor.hpp>

#include <iostream>

#include "layout.hpp"

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
  kd::Tensor col_wide = col.expand({3, 4});  // what broadcasting does, as a view
  kd::Tensor row_tall = row.expand({3, 4});
  std::cout << "col.expand({3, 4}): strides " << kd::shape_str(col_wide.strides())
            << ", row.expand({3, 4}): strides " << kd::shape_str(row_tall.strides())
            << "\nshare their storage: " << std::boolalpha
            << (col_wide.shares_storage(col) && row_tall.shares_storage(row)) << "\n";
  // [end]
  std::ofstream log("ch01_broadcasting.jsonl");
  write_layout(log, "col.expand({3, 4})", col_wide);
  write_layout(log, "row.expand({3, 4})", row_tall);

  // [snippet: mismatch]
  try {
    kd::Tensor bad = kd::ones({2, 3}) + kd::ones({3, 2});
  } catch (const kd::ShapeError& e) {
    std::cout << "ShapeError: " << e.what() << "\n";
  }
  // [end]
}
