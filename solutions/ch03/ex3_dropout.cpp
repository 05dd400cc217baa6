// ex3 — Dropout: a random mask in training, scaled so that the expected value stays; identity in eval.
#include "ch03/module_exercises.hpp"

namespace kindling::exercises::ch03 {

Dropout::Dropout(double p_) : p(p_) {
  // BEGIN SOLUTION ex3: check 0 <= p <= 1 (ValueError)
  if (!(p >= 0.0 && p <= 1.0)) {  // written so that NaN fails too
    throw ValueError("Dropout: probability has to be between 0 and 1, but got " + std::to_string(p));
  }
  // END SOLUTION
}

Tensor Dropout::forward(const Tensor& x) {
  // BEGIN SOLUTION ex3: eval or p == 0 -> x; else x * mask, mask = (rand >= p) / (1 - p); p == 1 -> zeros
  if (!is_training() || p == 0.0) return x;
  if (p == 1.0) return x * zeros_like(x);  // 1/(1-p) would be inf, and 0·inf = NaN
  // keep: 1 with probability 1-p. It is a constant for autograd: d(x·mask)/dx = mask.
  Tensor keep = rand(x.shape(), {.dtype = x.dtype()}).ge(scalar_tensor(p, {.dtype = x.dtype()})).to(x.dtype());
  return x * (keep * (1.0 / (1.0 - p)));
  // END SOLUTION
}

}  // namespace kindling::exercises::ch03
