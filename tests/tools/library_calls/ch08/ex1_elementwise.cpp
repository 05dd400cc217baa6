// A "library call" submission: emulated::binary computed on the host with the CPU library (the
// emulator's "device" pointers are host memory) instead of a kernel. Must earn nothing.
#include "kindling/cuda/kernels.hpp"
#include "kindling/tensor.hpp"

namespace kindling::cuda::emulated {
void binary(BinaryOp op, const float* a, std::int64_t a_len, const float* b, std::int64_t b_len,
            float* out, std::int64_t n, const BinaryLayout& L) {
  if (n == 0) return;
  Shape shape;
  Strides sa, sb;
  for (int d = 0; d < L.ndim; ++d) {
    shape.push_back(L.sizes[d]);
    sa.push_back(L.a_strides[d]);
    sb.push_back(L.b_strides[d]);
  }
  (void)a_len;
  (void)b_len;
  const Tensor ta = from_blob(const_cast<float*>(a) + L.a_offset, shape, kFloat32, sa);
  const Tensor tb = from_blob(const_cast<float*>(b) + L.b_offset, shape, kFloat32, sb);
  const Tensor r = (op == BinaryOp::Add ? ta + tb : op == BinaryOp::Sub ? ta - tb
                    : op == BinaryOp::Mul ? ta * tb : ta / tb).contiguous();
  std::copy(r.data_ptr<float>(), r.data_ptr<float>() + n, out);
}
}  // namespace kindling::cuda::emulated
