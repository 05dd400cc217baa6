// Backward of tensor/reductions.cpp. A reduction maps many input elements to one output element, so
// backward *spreads* the output gradient back: first re-insert the reduced dims as size 1
// (unsqueeze_reduced), then let broadcasting copy it along them.
#include <algorithm>

#include "autograd/registry.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

/// Re-inserts reduced dims of size 1 so a reduced gradient broadcasts against the input:
/// grad [2, 4] (x [2, 3, 4] summed over dim 1) -> [2, 1, 4]. `dims` are normalised; empty = all.
Tensor unsqueeze_reduced(const Tensor& grad, const Shape& input_shape, const Shape& dims, bool keepdim) {
  const auto rank = static_cast<std::int64_t>(input_shape.size());
  if (keepdim || rank == 0) return grad;
  if (dims.empty()) return grad.reshape(Shape(input_shape.size(), 1));
  Shape sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  Tensor g = grad;
  for (auto d : sorted) g = g.unsqueeze(d);  // ascending, so earlier insertions do not shift later ones
  return g;
}

/// How many input elements were reduced into each output element.
std::int64_t reduced_count(const Shape& input_shape, const Shape& dims) {
  if (dims.empty()) return numel_of(input_shape);
  std::int64_t n = 1;
  for (auto d : dims) n *= input_shape.empty() ? 1 : input_shape[static_cast<std::size_t>(d)];
  return n;
}

// sum: out = x.sum()                    dx = g expanded to x's shape
struct Sum : Function<Sum> {
  static constexpr const char* name = "SumBackward0";
  Shape self_sizes;
  void setup_context(Context&, const Tensor& x, const Tensor&) { self_sizes = x.shape(); }
  Grads backward(Context&, const Grads& grad) { return {grad[0].expand(self_sizes)}; }
};

// sum_dim: out = x.sum(dims, keepdim)   x: [2, 3, 4], dims {1} -> out: [2, 4]
// dx = g [2, 4] -> [2, 1, 4] -> expand to [2, 3, 4]
struct SumDim : Function<SumDim> {
  static constexpr const char* name = "SumBackward1";
  Shape self_sizes, dims;
  bool keepdim = false;
  void setup_context(Context&, const Tensor& x, const IntArrayRef& dims_, const bool& keepdim_, const Tensor&) {
    self_sizes = x.shape();
    dims = Shape(dims_.begin(), dims_.end());
    keepdim = keepdim_;
  }
  Grads backward(Context&, const Grads& grad) {
    return {unsqueeze_reduced(grad[0], self_sizes, dims, keepdim).expand(self_sizes)};
  }
};

// mean: out = x.sum(dims) / n    dx = g / n spread over the reduced dims (n = elements per output)
struct Mean : Function<Mean> {
  static constexpr const char* name = "MeanBackward0";
  Shape self_sizes;
  void setup_context(Context&, const Tensor& x, const Tensor&) { self_sizes = x.shape(); }
  Grads backward(Context&, const Grads& grad) {
    return {(grad[0] / static_cast<double>(numel_of(self_sizes))).expand(self_sizes)};
  }
};

struct MeanDim : Function<MeanDim> {
  static constexpr const char* name = "MeanBackward1";
  Shape self_sizes, dims;
  bool keepdim = false;
  void setup_context(Context&, const Tensor& x, const IntArrayRef& dims_, const bool& keepdim_, const Tensor&) {
    self_sizes = x.shape();
    dims = Shape(dims_.begin(), dims_.end());
    keepdim = keepdim_;
  }
  Grads backward(Context&, const Grads& grad) {
    const auto n = static_cast<double>(reduced_count(self_sizes, dims));
    return {(unsqueeze_reduced(grad[0], self_sizes, dims, keepdim) / n).expand(self_sizes)};
  }
};

// max / min: out = x.max() (0-d)
// dx = g / k at the k elements equal to out, 0 elsewhere: ties share the gradient evenly
// (torch 1.13: x = [1, 3, 3, 2] -> x.grad = [0, .5, .5, 0]).
template <bool IsMax>
struct ExtremeAll : Function<ExtremeAll<IsMax>> {
  static constexpr const char* name = IsMax ? "MaxBackward1" : "MinBackward1";
  void setup_context(Context& ctx, const Tensor& x, const Tensor& out) { ctx.save_for_backward({x, out}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor x = ctx.saved(0);
    const Tensor mask = (x == ctx.saved(1)).to(x.dtype());  // 1 where x is the max
    return {mask * (grad[0] / mask.sum())};
  }
};

// max_dim / min_dim: (values, indices) = x.max(dim, keepdim)     x: [2, 5], dim 1 -> [2]
// dx = g at the chosen index along dim (one element per row, even with ties), 0 elsewhere.
// one_hot[i, j] = (j == indices[i]) is built from arange so the formula stays made of tensor ops.
template <bool IsMax>
struct ExtremeDim : Function<ExtremeDim<IsMax>> {
  static constexpr const char* name = IsMax ? "MaxBackward0" : "MinBackward0";
  Shape self_sizes;
  std::int64_t dim = 0;
  bool keepdim = false;
  void setup_context(Context& ctx, const Tensor& x, const std::int64_t& dim_, const bool& keepdim_,
                     std::span<const Tensor> outs) {
    self_sizes = x.shape();
    dim = dim_;
    keepdim = keepdim_;
    ctx.save_for_backward({outs[1]});  // the indices
  }
  Grads backward(Context& ctx, const Grads& grad) {
    if (self_sizes.empty()) return {grad[0]};
    Tensor g = grad[0], idx = ctx.saved(0);
    if (!keepdim) {
      g = g.unsqueeze(dim);  // [2] -> [2, 1]
      idx = idx.unsqueeze(dim);
    }
    Shape along(self_sizes.size(), 1);
    along[static_cast<std::size_t>(dim)] = self_sizes[static_cast<std::size_t>(dim)];
    const Tensor positions = arange(self_sizes[static_cast<std::size_t>(dim)]).reshape(along);  // [1, 5] = 0 1 2 3 4
    return {where(positions == idx, g, 0.0).expand(self_sizes)};
  }
};

// var: out = Σ(x - mean)² / (n - correction) over dims (all when dims is empty)
// dx = g * 2 (x - mean) / (n - correction)
Tensor var_grad(const Tensor& x, const Tensor& g_in, const Shape& dims, std::int64_t correction, bool keepdim) {
  const Shape& shape = x.shape();
  const auto n = static_cast<double>(reduced_count(shape, dims));
  const Tensor g = unsqueeze_reduced(g_in, shape, dims, keepdim);
  const Tensor mean = dims.empty() ? x.mean() : x.mean(dims, /*keepdim=*/true);
  return g * (x - mean) * (2.0 / (n - static_cast<double>(correction)));
}

struct Var : Function<Var> {
  static constexpr const char* name = "VarBackward0";
  Shape dims;
  std::int64_t correction = 1;
  bool keepdim = false;
  void setup_context(Context& ctx, const Tensor& x, const IntArrayRef& dims_, const std::int64_t& correction_,
                     const bool& keepdim_, const Tensor&) {
    dims = Shape(dims_.begin(), dims_.end());
    correction = correction_;
    keepdim = keepdim_;
    ctx.save_for_backward({x});
  }
  Grads backward(Context& ctx, const Grads& grad) { return {var_grad(ctx.saved(0), grad[0], dims, correction, keepdim)}; }
};

// std: out = √var                dvar = g / (2 out), then var's formula; 0 where out == 0
// (a constant input: PyTorch masks the 0/0 to 0 as well).
struct Std : Function<Std> {
  static constexpr const char* name = "StdBackward0";
  Shape dims;
  std::int64_t correction = 1;
  bool keepdim = false;
  void setup_context(Context& ctx, const Tensor& x, const IntArrayRef& dims_, const std::int64_t& correction_,
                     const bool& keepdim_, const Tensor& out) {
    dims = Shape(dims_.begin(), dims_.end());
    correction = correction_;
    keepdim = keepdim_;
    ctx.save_for_backward({x, out});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor out = ctx.saved(1);
    const Tensor g_var = where(out == 0.0, 0.0, grad[0] / (out * 2.0));
    return {var_grad(ctx.saved(0), g_var, dims, correction, keepdim)};
  }
};

}  // namespace

void register_reductions(Registry& r) {
  r.add<Sum>("sum");
  r.add<SumDim>("sum_dim");
  r.add<Mean>("mean");
  r.add<MeanDim>("mean_dim");
  r.add<ExtremeAll<true>>("max");
  r.add<ExtremeAll<false>>("min");
  r.add<ExtremeDim<true>>("max_dim");
  r.add<ExtremeDim<false>>("min_dim");
  r.add<Var>("var");
  r.add<Std>("std");
}

}  // namespace kindling::autograd
