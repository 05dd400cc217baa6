// Chapter 1 — what a tensor is: one flat storage, and (shape, strides, offset) that
// give it a shape. Prints where each element of a few views lives in the storage, and
// records the same facts in ch01_strides.jsonl for the book's picture of the layout.
#include <kindling/tensor.hpp>

#include <iostream>

#include "layout.hpp"

namespace kd = kindling;

// One line per view: its geometry and the storage cells it reads, in row-major order.
void describe(const char* name, const kd::Tensor& t, std::ofstream& log) {
  std::printf("%-10s shape %-7s strides %-7s offset %lld  contiguous %-3s  reads", name,
              kd::shape_str(t.shape()).c_str(), kd::shape_str(t.strides()).c_str(),
              static_cast<long long>(t.storage_offset()),
              t.is_contiguous() ? "yes" : "no");
  for (auto p : positions(t)) std::printf(" %lld", static_cast<long long>(p));
  std::printf("\n");
  write_layout(log, name, t);
}

int main() {
  // [snippet: create]
  kd::Tensor x = kd::arange(6).view({2, 3});  // torch.arange(6).view(2, 3)
  std::cout << x << "\n";
  std::cout << "shape " << kd::shape_str(x.shape()) << ", strides "
            << kd::shape_str(x.strides()) << ", offset " << x.storage_offset()
            << ", dtype " << kd::dtype_name(x.dtype()) << ", " << x.storage()->nbytes()
            << " bytes of storage\n";
  // [end]

  // [snippet: views]
  kd::Tensor xt = x.t();                     // x.t()        [3, 2]
  kd::Tensor row = x[1];                     // x[1]         [3]
  kd::Tensor col = x.select(1, 2);           // x[:, 2]      [2]
  kd::Tensor stepped = x.slice(1, 0, 3, 2);  // x[:, ::2]    [2, 2]
  // [end]
  std::ofstream log("ch01_strides.jsonl");
  describe("x", x, log);
  describe("x.t()", xt, log);
  describe("x[1]", row, log);
  describe("x[:, 2]", col, log);
  describe("x[:, ::2]", stepped, log);
  std::cout << "all five share one storage: " << std::boolalpha
            << (xt.shares_storage(x) && row.shares_storage(x) &&
                col.shares_storage(x) && stepped.shares_storage(x))
            << "\n";
}
