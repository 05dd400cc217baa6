// Derivative table, reductions. A reduction maps many input elements to one output element, so
// backward *spreads* the output gradient back: first re-insert the reduced dims as size 1
// (unsqueeze_reduced), then let broadcasting copy it along them.
#include "autograd/function.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

using Grads = std::vector<Tensor>;

// sum: out = x.sum(dims, keepdim)     x: [2, 3, 4], dims {1} -> out: [2, 4]
// dx = g [2, 4] -> [2, 1, 4] -> expand to [2, 3, 4]
Grads sum_backward(const BackwardContext& c) {
  const Shape& shape = c.input_shape(0);
  Tensor g = unsqueeze_reduced(c.grad(), static_cast<std::int64_t>(shape.size()), c.ints(), c.flag());
  return {g.expand(shape)};
}

// mean: out = x.sum(dims) / n    dx = g / n spread over the reduced dims (n = elements per output)
Grads mean_backward(const BackwardContext& c) {
  const Shape& shape = c.input_shape(0);
  const auto n = static_cast<double>(reduced_count(shape, c.ints()));
  Tensor g = unsqueeze_reduced(c.grad(), static_cast<std::int64_t>(shape.size()), c.ints(), c.flag());
  return {(g / n).expand(shape)};
}

// max_all / min_all: out = x.max() (0-d)
// dx = g / k at the k elements equal to out, 0 elsewhere: ties share the gradient evenly
// (torch 1.13: x = [1, 3, 3, 2] -> x.grad = [0, .5, .5, 0]).
Grads extreme_all_backward(const BackwardContext& c) {
  const Tensor x = c.input(0);
  const Tensor mask = (x == c.output()).to(x.dtype());  // 1 where x is the max
  return {mask * (c.grad() / mask.sum())};
}

// max_dim / min_dim: (values, indices) = x.max(dim, keepdim)     x: [2, 5], dim 1 -> [2]
// dx = g at the chosen index along dim (one element per row, even with ties), 0 elsewhere.
// one_hot[i, j] = (j == indices[i]) is built from arange so the formula stays made of tensor ops.
Grads extreme_dim_backward(const BackwardContext& c) {
  const Shape& shape = c.input_shape(0);
  const auto rank = static_cast<std::int64_t>(shape.size());
  if (rank == 0) return {c.grad()};
  const std::int64_t dim = wrap_dim(c.ints()[0], rank, "max");
  Tensor g = c.grad(), idx = c.output(1);
  if (!c.flag()) {
    g = g.unsqueeze(dim);    // [2] -> [2, 1]
    idx = idx.unsqueeze(dim);
  }
  Shape along(static_cast<std::size_t>(rank), 1);
  along[dim] = shape[dim];
  Tensor positions = arange(shape[dim]).reshape(along);  // [1, 5] = 0 1 2 3 4
  Tensor one_hot = positions == idx;                     // [2, 5] bool
  return {where(one_hot, g, 0.0).expand(shape)};
}

// var: out = Σ(x - mean)² / (n - correction)        ints: correction, then dims (none = all)
// dx = g * 2 (x - mean) / (n - correction)
Tensor var_grad(const Tensor& x, const Tensor& g_in, const BackwardContext& c) {
  const std::int64_t correction = c.ints()[0];
  const std::vector<std::int64_t> dims(c.ints().begin() + 1, c.ints().end());
  const Shape& shape = c.input_shape(0);
  const auto n = static_cast<double>(reduced_count(shape, dims));
  Tensor g = unsqueeze_reduced(g_in, static_cast<std::int64_t>(shape.size()), dims, c.flag());
  Tensor mean = dims.empty() ? x.mean() : x.mean(dims, /*keepdim=*/true);
  return g * (x - mean) * (2.0 / (n - static_cast<double>(correction)));
}

Grads var_backward(const BackwardContext& c) { return {var_grad(c.input(0), c.grad(), c)}; }

// std: out = √var                dvar = g / (2 out), then var's formula; 0 where out == 0
// (a constant input: PyTorch masks the 0/0 to 0 as well).
Grads std_backward(const BackwardContext& c) {
  const Tensor out = c.output();
  const Tensor g_var = where(out == 0.0, 0.0, c.grad() / (out * 2.0));
  return {var_grad(c.input(0), g_var, c)};
}

// softmax: y = exp(x) / Σ exp(x) along dim
// dx = y * (g - Σ(g * y))   (the Jacobian diag(y) - y yᵀ applied to g, without building it)
Grads softmax_backward(const BackwardContext& c) {
  const Tensor y = c.output();
  const std::int64_t dim = c.ints()[0];
  const Tensor& g = c.grad();
  if (y.dim() == 0) return {zeros_like(g)};
  return {y * (g - (g * y).sum(dim, /*keepdim=*/true))};
}

// log_softmax: y = x - log Σ exp(x) along dim
// dx = g - exp(y) * Σ g
Grads log_softmax_backward(const BackwardContext& c) {
  const Tensor y = c.output();
  const std::int64_t dim = c.ints()[0];
  const Tensor& g = c.grad();
  if (y.dim() == 0) return {zeros_like(g)};
  return {g - y.exp() * g.sum(dim, /*keepdim=*/true)};
}

// sum() and sum(dims) are different PyTorch functions, hence different node names.
const char* sum_name(const detail::OpRecord& r, const std::vector<Tensor>&) {
  return r.ints.empty() ? "SumBackward0" : "SumBackward1";
}
const char* mean_name(const detail::OpRecord& r, const std::vector<Tensor>&) {
  return r.ints.empty() ? "MeanBackward0" : "MeanBackward1";
}

const Derivative kRows[] = {
    {"sum", "SumBackward1", sum_backward, kSaveNothing, sum_name},
    {"mean", "MeanBackward1", mean_backward, kSaveNothing, mean_name},
    {"max_all", "MaxBackward1", extreme_all_backward, kSaveInput0 | kSaveOutputs},
    {"min_all", "MinBackward1", extreme_all_backward, kSaveInput0 | kSaveOutputs},
    {"max_dim", "MaxBackward0", extreme_dim_backward, kSaveOutputs},
    {"min_dim", "MinBackward0", extreme_dim_backward, kSaveOutputs},
    {"var", "VarBackward0", var_backward, kSaveInput0},
    {"std", "StdBackward0", std_backward, kSaveInput0 | kSaveOutputs},
    {"softmax", "SoftmaxBackward0", softmax_backward, kSaveOutputs},
    {"log_softmax", "LogSoftmaxBackward0", log_softmax_backward, kSaveOutputs},
};

}  // namespace

DerivativeTable reduction_derivatives() { return {kRows, std::size(kRows)}; }

}  // namespace kindling::autograd
