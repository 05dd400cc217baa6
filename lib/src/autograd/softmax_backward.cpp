// Backward of tensor/softmax.cpp: softmax and log_softmax, from their saved outputs.
#include "autograd/registry.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::autograd {
namespace {

// softmax: y = exp(x) / Σ exp(x) along dim
// dx = y * (g - Σ(g * y))   (the Jacobian diag(y) - y yᵀ applied to g, without building it)
struct Softmax : Function<Softmax> {
  static constexpr const char* name = "SoftmaxBackward0";
  std::int64_t dim = 0;
  void setup_context(Context& ctx, const Tensor&, const std::int64_t& dim_, const Tensor& out) {
    dim = dim_;
    ctx.save_for_backward({out});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor y = ctx.saved(0);
    const Tensor& g = grad[0];
    if (y.dim() == 0) return {zeros_like(g)};
    return {y * (g - (g * y).sum(dim, /*keepdim=*/true))};
  }
};

// log_softmax: y = x - log Σ exp(x) along dim
// dx = g - exp(y) * Σ g
struct LogSoftmax : Function<LogSoftmax> {
  static constexpr const char* name = "LogSoftmaxBackward0";
  std::int64_t dim = 0;
  void setup_context(Context& ctx, const Tensor&, const std::int64_t& dim_, const Tensor& out) {
    dim = dim_;
    ctx.save_for_backward({out});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor y = ctx.saved(0);
    const Tensor& g = grad[0];
    if (y.dim() == 0) return {zeros_like(g)};
    return {g - y.exp() * g.sum(dim, /*keepdim=*/true)};
  }
};

}  // namespace

void register_softmax(Registry& r) {
  r.add<Softmax>("softmax");
  r.add<LogSoftmax>("log_softmax");
}

}  // namespace kindling::autograd
