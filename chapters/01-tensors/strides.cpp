// Chapter 1 — what a tensor is: one flat storage, and (shape, strides, offset) that give it a shape.
// Prints where each element of a few views lives in the storage, and draws the transposed view's
// mapping as a Graphviz picture (ch01_strides.dot, shown in the book).
#include <kindling/tensor.hpp>

#include <fstream>
#include <iostream>

namespace kd = kindling;

// One line per view: its geometry, then the storage position of each element in row-major order.
void describe(const char* name, const kd::Tensor& t) {
  std::printf("%-22s shape %-8s strides %-8s offset %lld  contiguous %-5s storage positions:", name,
              kd::shape_str(t.shape()).c_str(), kd::shape_str(t.strides()).c_str(),
              static_cast<long long>(t.storage_offset()), t.is_contiguous() ? "yes" : "no");
  const kd::Tensor flat = t.flatten();  // (a copy when t is not contiguous; we only read positions)
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    // position = offset + sum(index[d] * stride[d]), computed here by unravelling i
    std::int64_t rest = i, pos = t.storage_offset();
    for (std::int64_t d = t.dim() - 1; d >= 0; --d) {
      pos += (rest % t.size(d)) * t.stride(d);
      rest /= t.size(d);
    }
    std::printf(" %lld", static_cast<long long>(pos));
  }
  std::printf("\n");
}

int main() {
  // [snippet: create]
  kd::Tensor x = kd::arange(6).view({2, 3});  // torch.arange(6).view(2, 3)
  std::cout << x << "\n";
  std::cout << "shape " << kd::shape_str(x.shape()) << ", strides " << kd::shape_str(x.strides())
            << ", offset " << x.storage_offset() << ", dtype " << kd::dtype_name(x.dtype()) << ", "
            << x.storage()->nbytes() << " bytes of storage\n";
  // [end]

  // [snippet: views]
  kd::Tensor xt = x.t();                    // x.t()        [3, 2]
  kd::Tensor row = x[1];                    // x[1]         [3]
  kd::Tensor col = x.select(1, 2);          // x[:, 2]      [2]
  kd::Tensor stepped = x.slice(1, 0, 3, 2); // x[:, ::2]    [2, 2]
  // [end]
  describe("x", x);
  describe("x.t()", xt);
  describe("x[1]", row);
  describe("x[:, 2]", col);
  describe("x[:, ::2]", stepped);
  std::cout << "all five share one storage: " << std::boolalpha
            << (xt.shares_storage(x) && row.shares_storage(x) && col.shares_storage(x) &&
                stepped.shares_storage(x))
            << "\n";

  // The picture: storage cells on top, x.t()'s elements below, an arrow from each element to its cell.
  std::ofstream dot("ch01_strides.dot");
  dot << "digraph strides {\n  rankdir=TB; node [shape=record, fontname=\"monospace\"];\n";
  dot << "  storage [label=\"storage";
  for (std::int64_t i = 0; i < x.numel(); ++i)
    dot << "|<s" << i << "> " << x.flatten()[i].item<std::int64_t>();
  dot << "\"];\n";
  for (std::int64_t i = 0; i < xt.size(0); ++i) {
    dot << "  r" << i << " [label=\"x.t()[" << i << "]";
    for (std::int64_t j = 0; j < xt.size(1); ++j) dot << "|<e" << j << "> " << xt[i][j].item<std::int64_t>();
    dot << "\"];\n";
    for (std::int64_t j = 0; j < xt.size(1); ++j)
      dot << "  r" << i << ":e" << j << ":s -> storage:s" << xt[i][j].storage_offset() << ":n;\n";
  }
  dot << "  label=\"x.t(): shape " << kd::shape_str(xt.shape()) << ", strides " << kd::shape_str(xt.strides())
      << ", offset " << xt.storage_offset() << "\";\n}\n";
  std::cout << "wrote ch01_strides.dot\n";
}
