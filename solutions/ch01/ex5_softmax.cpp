// ex5 — a softmax that never overflows.
#include "ch01/tensor_exercises.hpp"

namespace kindling::exercises::ch01 {

Tensor softmax(const Tensor& x, std::int64_t dim) {
  // BEGIN SOLUTION ex5: subtract the max along dim (keepdim) before exp, then normalise
  if (!x.is_floating_point()) {
    throw DTypeError(std::string("softmax: expected a float32 or float64 tensor, got ") + dtype_name(x.dtype()));
  }
  // exp(1000) overflows float32 (and float64), but softmax(x) == softmax(x - c) for any c: with
  // c = max, the largest exponent is exp(0) = 1 and nothing overflows.
  // x: [..., n, ...]; m: same with n -> 1 (keepdim), so x - m broadcasts along dim.
  const Tensor m = x.max(dim, /*keepdim=*/true).first;
  const Tensor e = (x - m).exp();
  return e / e.sum(dim, /*keepdim=*/true);
  // END SOLUTION
}

}  // namespace kindling::exercises::ch01
