// Cheat "route" (see ../../README.md): the strided copy written as other library machinery that does the
// same job (issue 26, class 6): correct values, no piece written.
#include "tensor/dispatch.hpp"
#include "tensor/loops.hpp"
#include "tensor/pieces.hpp"

namespace kindling::detail {

void strided_copy(const Tensor& dst, const Tensor& src) {
  Tensor out = dst;   // a handle to the same storage
  out.zero_();
  out.add_(src);
}

}  // namespace kindling::detail
