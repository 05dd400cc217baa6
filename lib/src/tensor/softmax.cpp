// softmax and log_softmax along any dim, numerically stable.
//
// softmax(x)_i = exp(x_i) / Σ_j exp(x_j) overflows as soon as some x_i > 88 (float32). Subtracting the
// lane's maximum m first changes nothing mathematically (the factor exp(-m) cancels) but keeps every
// exponent <= 0:   softmax(x)_i = exp(x_i - m) / Σ_j exp(x_j - m).
// log_softmax is computed directly as x_i - m - log(Σ_j exp(x_j - m)) rather than log(softmax(x)),
// which would give -inf wherever softmax underflows to 0.
//
// The kernel is chapter 1's exercise 5 (pieces.hpp: softmax_forward); this file checks arguments,
// calls it and records the op for autograd.
#include <string>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"
#include "pieces.hpp"

namespace kindling {
namespace {
using namespace detail;

template <bool Log> Tensor softmax_impl(const Tensor& x, std::int64_t dim, const char* op) {  // not recorded
  check_cpu(x, op);
  const std::int64_t d = wrap_dim(dim, x.dim(), op);
  // float16/bfloat16: computed in float32 and rounded once, as PyTorch's CPU kernel does.
  if (is_reduced_floating_point(x.dtype())) return cast(softmax_impl<Log>(cast(x, kFloat32), d, op), x.dtype());
  dispatch_floating(x.dtype(), op, [](auto) {});  // a clear DTypeError for integer inputs
  // The values come from chapter 1's exercise 5 (pieces.hpp), checked so that a wrong answer gives a
  // clear error rather than a tensor of the wrong geometry further down.
  Tensor out = softmax_forward(piece_input(x), d, Log);
  if (!out.defined() || out.shape() != x.shape() || out.dtype() != x.dtype()) {
    throw ValueError(std::string(op) + ": the softmax kernel (ch01.ex5, softmax_forward) returned " +
                     (out.defined() ? dname(out.dtype()) + " of shape " + shape_str(out.shape())
                                    : std::string("an undefined tensor")) +
                     " for an input of " + dname(x.dtype()) + " shape " + shape_str(x.shape()) +
                     "; it must keep the input's shape and dtype.");
  }
  return out;
}

}  // namespace

Tensor softmax(const Tensor& x, std::int64_t dim) {
  return record<"softmax">(softmax_impl<false>(x, dim, "softmax"), x, wrap_dim(dim, x.dim(), "softmax"));
}
Tensor log_softmax(const Tensor& x, std::int64_t dim) {
  return record<"log_softmax">(softmax_impl<true>(x, dim, "log_softmax"), x, wrap_dim(dim, x.dim(), "log_softmax"));
}
Tensor Tensor::softmax(std::int64_t dim) const { return kindling::softmax(*this, dim); }
Tensor Tensor::log_softmax(std::int64_t dim) const { return kindling::log_softmax(*this, dim); }

}  // namespace kindling
