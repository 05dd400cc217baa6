// Chapter 1 — matmul, and why a transposed weight needs no copy: BLAS takes a
// "transpose" flag and reads the view where it is.
#include <kindling/tensor.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  kd::manual_seed(0);
  // [snippet: linear]
  kd::Tensor x = kd::randn({32, 784});  // a batch of 32 flattened 28x28 images
  kd::Tensor W = kd::randn({128, 784});  // nn.Linear(784, 128).weight: [out, in]
  const auto before = kd::memory::allocation_count();
  kd::Tensor y = x.matmul(W.t());  // [32, 784] @ [784, 128] -> [32, 128]
  const auto allocated = kd::memory::allocation_count() - before;
  // [end]
  std::cout << "y: shape " << kd::shape_str(y.shape()) << "\nW.t(): strides "
            << kd::shape_str(W.t().strides()) << ", contiguous " << std::boolalpha
            << W.t().is_contiguous()
            << "\nstorages allocated by x.matmul(W.t()): " << allocated
            << " (the output)\n";

  // [snippet: same-answer]
  const auto before_copy = kd::memory::allocation_count();
  kd::Tensor y2 = x.matmul(W.t().contiguous());  // a copy of W^T first: same answer
  // [end]
  // "Same" to float32 rounding: the BLAS may pick another kernel for the other
  // layout and add the 784 products in another order (|y| ~ 30: differences of
  // ~5e-5 on some CPUs, 0 on others).
  std::cout << "x.matmul(W.t().contiguous()): allocations "
            << kd::memory::allocation_count() - before_copy
            << ", same result: " << kd::allclose(y, y2, 1e-5, 1e-4) << "\n";

  // [snippet: shapes]
  kd::Tensor v = kd::randn({784});
  std::cout << "matrix @ vector: " << kd::shape_str(x.matmul(v).shape())
            << "\nbatched [4, 32, 784] @ [784, 128]: "
            << kd::shape_str(kd::randn({4, 32, 784}).matmul(W.t()).shape()) << "\n";
  // [end]

  // [snippet: error]
  try {
    kd::Tensor bad = x.matmul(W);  // forgot the .t()
  } catch (const kd::ShapeError& e) {
    std::cout << "ShapeError: " << e.what() << "\n";
  }
  // [end]
}
