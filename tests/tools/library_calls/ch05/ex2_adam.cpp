// A "library call" submission (see tests/tools/library_calls/ch01/ex1_strides.cpp): the Adam step through a
// throwaway kd::optim::Adam — whose step() calls this very function.
#include "train/pieces.hpp"

namespace kindling::optim::detail {
void adam_step(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, const Tensor& vmax,
               const AdamOptions& o, std::int64_t step, bool decoupled) {
  Tensor q = p;
  q.set_grad(g);
  Adam(std::vector<Tensor>{q}, o).step();
}
}  // namespace kindling::optim::detail
