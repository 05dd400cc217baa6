// Chapter 1 — views vs copies: a view is new (shape, strides, offset) over the same
// storage. Writing through a view changes the original; view() refuses strides it
// cannot express, reshape() copies instead; the allocation meter counts the copies.
#include <kindling/tensor.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  kd::Tensor x = kd::arange(12).to(kd::kFloat32).view({3, 4});
  const auto allocations = [] { return kd::memory::allocation_count(); };

  // [snippet: write-through]
  auto start = allocations();
  kd::Tensor xt = x.t();  // [4, 3]: a view
  // x[:2, :2]
  kd::Tensor corner = x.index({kd::indexing::Slice(0, 2), kd::indexing::Slice(0, 2)});
  std::cout << "storages allocated for two views: " << allocations() - start << "\n";
  corner.fill_(-1);  // writes into x's storage
  std::cout << "x after x[:2, :2].fill_(-1):\n" << x << "\n";
  std::cout << "xt[0] = " << xt[0] << "\n";
  // [end]

  // [snippet: view-error]
  try {
    kd::Tensor flat = xt.view({12});  // xt's elements are not in storage order
  } catch (const kd::ShapeError& e) {
    std::cout << "ShapeError: " << e.what() << "\n";
  }
  // [end]

  // [snippet: reshape-copies]
  start = allocations();
  kd::Tensor r = xt.reshape({12});   // a copy: no strides can express it
  kd::Tensor v = x.reshape({2, 6});  // a view: x is contiguous
  std::cout << "xt.reshape({12}) shares x's storage: " << std::boolalpha
            << r.shares_storage(x)
            << "\nx.reshape({2, 6}) shares x's storage: " << v.shares_storage(x)
            << "\nstorages allocated: " << allocations() - start << "\n";
  // [end]

  // [snippet: contiguous]
  std::cout << "xt.is_contiguous() = " << xt.is_contiguous() << ", strides "
            << kd::shape_str(xt.strides()) << "\n";
  kd::Tensor c = xt.contiguous();  // copies into row-major order
  std::cout << "xt.contiguous(): strides " << kd::shape_str(c.strides())
            << ", shares storage " << c.shares_storage(x)
            << "\nx.contiguous() is x itself: " << x.contiguous().is_same(x) << "\n";
  // [end]

  // [snippet: meter]
  kd::memory::reset_peak();
  const auto base = kd::memory::allocated_bytes();
  {
    kd::Tensor big = kd::zeros({1000, 1000});    // 4 MB
    kd::Tensor view = big.t().slice(0, 0, 500);  // no new bytes
    kd::Tensor copy = view.contiguous();         // 2 MB more
    std::cout << "live: " << kd::memory::allocated_bytes() - base << " bytes\n";
  }
  std::cout << "after the scope: " << kd::memory::allocated_bytes() - base
            << " bytes live, peak " << kd::memory::peak_allocated_bytes() - base
            << "\n";
  // [end]
}
