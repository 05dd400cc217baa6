// ch08.ex5 — the device-to-host copy of a strided tensor, behind Tensor::to(kCPU) / cpu() for every
// tensor on a CUDA device (lib/src/cuda/copy.cpp calls it). Declared in lib/src/cuda/pieces.hpp.
//
// A view on the device (a transpose, a slice, an expand) is not one contiguous run of bytes, and
// copying it element by element would cost one transfer per element. Instead: copy once the span of
// memory the view reaches, from its first element to its last, into a host buffer; rebuild the same
// view (same shape and strides, offset 0) over that buffer; and let the CPU's contiguous() gather the
// elements.
#include "cuda/pieces.hpp"
#include "kindling/tensor/error.hpp"
#include "tensor/internal.hpp"

namespace kindling::cuda {
Tensor copy_strided_to_host(const Tensor& src,
                            void (*copy_to_host)(void* dst, const void* src,
                                                 std::size_t nbytes)) {
  // BEGIN SOLUTION ex5: one copy of the span the view reaches, then the same view on the host
  if (src.numel() == 0)
    return kindling::detail::make_tensor(src.shape(), src.dtype(), kCPU);
  // The last element's offset from the first: sum over dims of (size - 1) * stride.
  std::int64_t last = 0;
  for (std::int64_t d = 0; d < src.dim(); ++d) {
    if (src.stride(d) < 0)
      throw ValueError("to: a negative stride cannot be copied from the device");
    last += (src.size(d) - 1) * src.stride(d);
  }
  const std::int64_t span = last + 1;  // elements from the first to the last, inclusive
  Tensor staging = kindling::detail::make_tensor({span}, src.dtype(), kCPU);
  copy_to_host(staging.raw_data_ptr(), src.raw_data_ptr(),
               static_cast<std::size_t>(span) * src.element_size());
  return kindling::detail::make_view(staging, src.shape(), src.strides(), 0)
      .contiguous();
  // END SOLUTION
}

}  // namespace kindling::cuda
