// ch03.ex3 — dropout: zero each element with probability p, scale the rest by 1/(1-p).
//
// nn::functional::dropout (kindling/nn/functional.hpp): nn::Dropout::forward calls it with its p and
// is_training().
#include <string>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/random.hpp"
#include "nn/checks.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/internal.hpp"

namespace kindling::nn::functional {

Tensor dropout(const Tensor& x, double p, bool training) {
  // BEGIN SOLUTION ex3: identity unless training; a mask of 0 and 1/(1-p) from default_generator(); x * mask
  if (!(p >= 0.0 && p <= 1.0)) {
    throw ValueError("dropout: probability has to be between 0 and 1, but got " + std::to_string(p));
  }
  if (!training || p == 0.0) return x;
  detail::check_floating("dropout", "input", x);
  // mask: 0 with probability p, else 1/(1-p) — the survivors are scaled so E[out] = x.
  // In x's dtype, float16/bfloat16 included (as PyTorch's mask is): x * mask computes in float32.
  Tensor mask = kindling::detail::make_tensor(x.shape(), x.dtype(), x.device());
  kindling::detail::dispatch_all(x.dtype(), "dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* m = mask.data_ptr<T>();
    // One lock on the shared generator for the whole mask (its own calls lock per number).
    Generator::Draws gen = default_generator().lock();
    const T scale = p == 1.0 ? T(0) : static_cast<T>(1.0 / (1.0 - p));
    for (std::int64_t i = 0, n = mask.numel(); i < n; ++i) m[i] = gen.uniform() < p ? T(0) : scale;
  });
  return x * mask;
  // END SOLUTION
}

}  // namespace kindling::nn::functional
