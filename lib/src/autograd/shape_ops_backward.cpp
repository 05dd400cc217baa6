// Backward of tensor/shape_ops.cpp: each op is its own backward's shape, applied to the gradient.
#include "autograd/registry.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

// tril / triu: out = x on (and below / above) the diagonal, 0 elsewhere    dx = tril(g) / triu(g)
template <bool Lower>
struct Triangle : Function<Triangle<Lower>> {
  static constexpr const char* name = Lower ? "TrilBackward0" : "TriuBackward0";
  std::int64_t diagonal = 0;
  void setup_context(Context&, const Tensor&, const std::int64_t& diagonal_, const Tensor&) { diagonal = diagonal_; }
  Grads backward(Context&, const Grads& grad) { return {Lower ? tril(grad[0], diagonal) : triu(grad[0], diagonal)}; }
};

// flip: out = x reversed along dims           dx = g reversed along the same dims
struct Flip : Function<Flip> {
  static constexpr const char* name = "FlipBackward0";
  Shape dims;
  void setup_context(Context&, const Tensor&, const IntArrayRef& dims_, const Tensor&) {
    dims.assign(dims_.begin(), dims_.end());
  }
  Grads backward(Context&, const Grads& grad) { return {flip(grad[0], dims)}; }
};

}  // namespace

void register_shape_ops(Registry& r) {
  r.add<Triangle<true>>("tril");
  r.add<Triangle<false>>("triu");
  r.add<Flip>("flip");
}

}  // namespace kindling::autograd
