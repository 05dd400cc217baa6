// A "library call" submission: the comparison delegated to kd::autograd::gradcheck -- which calls
// this very function.
#include "autograd/pieces.hpp"

namespace kindling::autograd {
GradcheckResult compare_with_finite_differences(const GradcheckFn& fn, const std::vector<Tensor>& xs,
                                                const std::vector<std::size_t>&, const std::vector<Tensor>&,
                                                const Jacobians&, const GradcheckOptions& options) {
  return gradcheck(fn, xs, options);
}
}  // namespace kindling::autograd
