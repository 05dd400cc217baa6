// A "library call" submission (see tests/tools/library_calls/ch01/ex1_strides.cpp): the SGD step through a
// throwaway kd::optim::SGD — whose step() calls this very function.
#include "train/pieces.hpp"

namespace kindling::optim::detail {
void sgd_step(const Tensor& p, const Tensor& g, const Tensor& buf, const SGDOptions& o, bool first_step) {
  Tensor q = p;
  q.set_grad(g);
  SGD(std::vector<Tensor>{q}, o).step();
}
}  // namespace kindling::optim::detail
