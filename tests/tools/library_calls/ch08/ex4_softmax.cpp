// A "library call" submission: softmax_rows computed on the host with kindling::softmax (the
// emulator's "device" pointers are host memory) instead of a kernel. Must earn nothing.
#include <algorithm>

#include "kindling/cuda/kernels.hpp"
#include "kindling/tensor.hpp"

namespace kindling::cuda::emulated {
void softmax_rows(const float* x, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const Tensor t = from_blob(const_cast<float*>(x), {rows, cols}, kFloat32);
  const Tensor r = kindling::softmax(t, 1).contiguous();
  std::copy(r.data_ptr<float>(), r.data_ptr<float>() + r.numel(), out);
}
}  // namespace kindling::cuda::emulated
