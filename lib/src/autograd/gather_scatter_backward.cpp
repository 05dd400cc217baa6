// Backward of tensor/gather_scatter.cpp. Picking elements and placing them are each other's
// backward: the gradient of a gather is scattered (added) back to the positions it came from, and
// the gradient of a scatter is gathered from the positions it went to.
#include "autograd/registry.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

/// What every backward here keeps: the indexed dim, the input's shape, and the positions (saved,
/// so an in-place change to them before backward is caught).
struct Along {
  Shape self_sizes;
  std::int64_t dim = 0;
  void keep(Context& ctx, const Tensor& x, std::int64_t dim_, const NonDifferentiable& index) {
    self_sizes = x.shape();
    dim = dim_;
    ctx.save_for_backward({index.tensor});
  }
};

// index_select: out = x.index_select(dim, idx)    dx = zeros(x).index_add(dim, idx, g)
// (written as a scatter_add with idx broadcast along every other dim: a position picked twice gets
// both gradients)
struct IndexSelect : Function<IndexSelect>, Along {
  static constexpr const char* name = "IndexSelectBackward0";
  void setup_context(Context& ctx, const Tensor& x, const std::int64_t& dim_, const NonDifferentiable& index,
                     const Tensor&) {
    keep(ctx, x, dim_, index);
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    if (self_sizes.empty()) return {g.clone()};  // a 0-d x: the one element was picked
    // idx: [k] -> shaped [1, .., k, .., 1] then expanded to g's shape
    Shape view(self_sizes.size(), 1);
    view[static_cast<std::size_t>(dim)] = g.size(dim);
    const Tensor idx = ctx.saved(0).reshape(view).expand(g.shape());
    return {scatter_add(zeros(self_sizes, {.dtype = g.dtype()}), dim, idx, g)};
  }
};

// gather: out = x.gather(dim, idx)               dx = zeros(x).scatter_add(dim, idx, g)
struct Gather : Function<Gather>, Along {
  static constexpr const char* name = "GatherBackward0";
  void setup_context(Context& ctx, const Tensor& x, const std::int64_t& dim_, const NonDifferentiable& index,
                     const Tensor&) {
    keep(ctx, x, dim_, index);
  }
  Grads backward(Context& ctx, const Grads& grad) {
    return {scatter_add(zeros(self_sizes, {.dtype = grad[0].dtype()}), dim, ctx.saved(0), grad[0])};
  }
};

// scatter_add: out = x.scatter_add(dim, idx, src)   dx = g      dsrc = g.gather(dim, idx)
struct ScatterAdd : Function<ScatterAdd>, Along {
  static constexpr const char* name = "ScatterAddBackward0";
  void setup_context(Context& ctx, const Tensor& x, const std::int64_t& dim_, const NonDifferentiable& index,
                     const Tensor&, const Tensor&) {
    keep(ctx, x, dim_, index);
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    return {g, ctx.needs_input_grad(1) ? g.gather(dim, ctx.saved(0)) : Tensor()};
  }
};

// scatter: out = x.scatter(dim, idx, src)   dx = g with the overwritten positions zeroed
//                                           dsrc = g.gather(dim, idx)
struct Scatter : Function<Scatter>, Along {
  static constexpr const char* name = "ScatterBackward0";
  void setup_context(Context& ctx, const Tensor& x, const std::int64_t& dim_, const NonDifferentiable& index,
                     const Tensor&, const Tensor&) {
    keep(ctx, x, dim_, index);
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    const Tensor idx = ctx.saved(0);
    return {ctx.needs_input_grad(0) ? g.scatter(dim, idx, 0) : Tensor(),
            ctx.needs_input_grad(1) ? g.gather(dim, idx) : Tensor()};
  }
};

// scatter (a number): out = x.scatter(dim, idx, v)   dx = g with the overwritten positions zeroed
struct ScatterValue : Function<ScatterValue>, Along {
  static constexpr const char* name = "ScatterBackward1";
  void setup_context(Context& ctx, const Tensor& x, const std::int64_t& dim_, const NonDifferentiable& index,
                     const Scalar&, const Tensor&) {
    keep(ctx, x, dim_, index);
  }
  Grads backward(Context& ctx, const Grads& grad) { return {grad[0].scatter(dim, ctx.saved(0), 0)}; }
};

// masked_fill: out = mask ? v : x                dx = g where !mask, else 0
struct MaskedFill : Function<MaskedFill> {
  static constexpr const char* name = "MaskedFillBackward0";
  void setup_context(Context& ctx, const Tensor&, const NonDifferentiable& mask, const Scalar&, const Tensor&) {
    ctx.save_for_backward({mask.tensor});
  }
  Grads backward(Context& ctx, const Grads& grad) { return {grad[0].masked_fill(ctx.saved(0), 0)}; }
};

}  // namespace

void register_gather_scatter(Registry& r) {
  r.add<IndexSelect>("index_select");
  r.add<Gather>("gather");
  r.add<ScatterAdd>("scatter_add");
  r.add<Scatter>("scatter");
  r.add<ScatterValue>("scatter_value");
  r.add<MaskedFill>("masked_fill");
}

}  // namespace kindling::autograd
