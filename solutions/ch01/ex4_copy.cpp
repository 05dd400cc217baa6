// ch01.ex4 — the strided copy behind contiguous(): read one tensor's elements through its strides and
// write them through another's.
//
// contiguous(), clone(), copy_() between tensors of one dtype, cat and stack (so every DataLoader batch)
// all end here. Declared in lib/src/tensor/pieces.hpp.
#include "tensor/dispatch.hpp"
#include "tensor/loops.hpp"
#include "tensor/pieces.hpp"

namespace kindling::detail {

void strided_copy(const Tensor& dst, const Tensor& src) {
  // BEGIN SOLUTION ex4: walk every index of the shape, reading and writing through each tensor's strides
  // The library's own loop (loops.hpp): dimensions laid out back to back in both tensors are merged, so a
  // contiguous-to-contiguous copy is one vectorised pass and a transposed one walks rows. Elements are
  // moved as their C++ type (float, double, int64_t, uint8_t, bool): one template, every dtype.
  dispatch(dst.dtype(), "copy", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_loop<T, T>(dst, src, [](T v) { return v; });
  });
  // END SOLUTION
}

}  // namespace kindling::detail
