// Backward of tensor/compare_ops.cpp. Comparisons give bool tensors and have no gradient; where()
// routes the gradient by its mask.
#include "autograd/registry.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

// where: out = cond ? a : b      da = g where cond, else 0      db = g where !cond, else 0
// (cond is input 0, a bool tensor: it never gets a gradient, but it is saved -- and so version-checked)
struct Where : Function<Where> {
  static constexpr const char* name = "WhereBackward0";
  void setup_context(Context& ctx, const Tensor& cond, const Tensor&, const Tensor&, const Tensor&) {
    ctx.save_for_backward({cond});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor cond = ctx.saved(0);
    const Tensor& g = grad[0];
    return {Tensor(), ctx.needs_input_grad(1) ? where(cond, g, 0.0) : Tensor(),
            ctx.needs_input_grad(2) ? where(cond, 0.0, g) : Tensor()};
  }
};

}  // namespace

void register_compare_ops(Registry& r) { r.add<Where>("where"); }

}  // namespace kindling::autograd
