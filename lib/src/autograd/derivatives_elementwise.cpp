// Derivative table, elementwise family. Each row: the forward (as the op records it), the node
// PyTorch would create, and the backward formula. `g` is the gradient w.r.t. the output; results
// of binary ops are summed back to each input's shape (unbroadcast), since broadcasting in the
// forward means one input element fed several output elements.
// Formulas use ordinary tensor ops, so they could themselves be differentiated (double backward);
// the engine runs them under NoGradGuard.
#include <cmath>

#include "autograd/function.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

using Grads = std::vector<Tensor>;

// add: out = a + alpha * b                a: [..], b: [..], out: broadcast shape
// da = g            db = alpha * g        (each summed back to its input's shape)
Grads add_backward(const BackwardContext& c) {
  const Tensor& g = c.grad();
  const double alpha = c.scalars().empty() ? 1.0 : c.scalars()[0];
  Grads r(2);
  if (c.needs_input_grad(0)) r[0] = unbroadcast(g, c.input_shape(0));
  if (c.needs_input_grad(1)) r[1] = unbroadcast(alpha == 1.0 ? g : g * alpha, c.input_shape(1));
  return r;
}

// sub: out = a - alpha * b       da = g            db = -alpha * g
Grads sub_backward(const BackwardContext& c) {
  const Tensor& g = c.grad();
  const double alpha = c.scalars().empty() ? 1.0 : c.scalars()[0];
  Grads r(2);
  if (c.needs_input_grad(0)) r[0] = unbroadcast(g, c.input_shape(0));
  if (c.needs_input_grad(1)) r[1] = unbroadcast(alpha == 1.0 ? -g : g * (-alpha), c.input_shape(1));
  return r;
}

// mul: out = a * b               da = g * b        db = g * a
Grads mul_backward(const BackwardContext& c) {
  const Tensor& g = c.grad();
  Grads r(2);
  if (c.needs_input_grad(0)) r[0] = unbroadcast(g * c.input(1), c.input_shape(0));
  if (c.needs_input_grad(1)) r[1] = unbroadcast(g * c.input(0), c.input_shape(1));
  return r;
}

// div: out = a / b               da = g / b        db = -g * a / b²
Grads div_backward(const BackwardContext& c) {
  const Tensor& g = c.grad();
  const Tensor b = c.input(1);
  Grads r(2);
  if (c.needs_input_grad(0)) r[0] = unbroadcast(g / b, c.input_shape(0));
  if (c.needs_input_grad(1)) r[1] = unbroadcast(-g * c.input(0) / (b * b), c.input_shape(1));
  return r;
}

// pow (tensor exponent): out = a ** e
// da = g * e * a^(e-1)   (0 where e == 0, so 0**0 does not give nan)
// de = g * out * log(a)  (0 where a == 0 and e >= 0: the limit, as PyTorch does)
Grads pow_backward(const BackwardContext& c) {
  const Tensor& g = c.grad();
  const Tensor a = c.input(0), e = c.input(1);
  Grads r(2);
  if (c.needs_input_grad(0)) {
    Tensor da = where(e == 0.0, 0.0, g * e * a.pow(e - 1.0));
    r[0] = unbroadcast(da, c.input_shape(0));
  }
  if (c.needs_input_grad(1)) {
    Tensor out = c.output();
    Tensor de = g * out * a.log();
    de = where(a == 0.0, where(e >= 0.0, 0.0, de), de);  // a == 0 and e >= 0 -> 0
    r[1] = unbroadcast(de, c.input_shape(1));
  }
  return r;
}

// pow_scalar: out = a ** p       da = g * p * a^(p-1)   (0 for p == 0)
Grads pow_scalar_backward(const BackwardContext& c) {
  const double p = c.scalars()[0];
  if (p == 0.0) return {zeros_like(c.grad())};
  return {c.grad() * (c.input(0).pow(p - 1.0) * p)};
}

// neg: out = -x                  dx = -g
Grads neg_backward(const BackwardContext& c) { return {-c.grad()}; }

// abs: out = |x|                 dx = g * sign(x)       (sign(0) = 0, like PyTorch)
Grads abs_backward(const BackwardContext& c) {
  const Tensor x = c.input(0);
  const Tensor& g = c.grad();
  return {where(x > 0.0, g, where(x < 0.0, -g, 0.0))};
}

// exp: out = e^x                 dx = g * out           (saves the output, not x)
Grads exp_backward(const BackwardContext& c) { return {c.grad() * c.output()}; }

// log: out = ln x                dx = g / x
Grads log_backward(const BackwardContext& c) { return {c.grad() / c.input(0)}; }

// sqrt: out = √x                 dx = g / (2 out)
Grads sqrt_backward(const BackwardContext& c) { return {c.grad() / (c.output() * 2.0)}; }

// tanh: out = tanh x             dx = g * (1 - out²)
Grads tanh_backward(const BackwardContext& c) {
  const Tensor y = c.output();
  return {c.grad() * (1.0 - y * y)};
}

// sigmoid: out = σ(x)            dx = g * out * (1 - out)
Grads sigmoid_backward(const BackwardContext& c) {
  const Tensor y = c.output();
  return {c.grad() * y * (1.0 - y)};
}

// relu: out = max(x, 0)          dx = g where out > 0, else 0   (0 at x == 0, like PyTorch)
Grads relu_backward(const BackwardContext& c) { return {where(c.output() > 0.0, c.grad(), 0.0)}; }

// clamp: out = min(max(x, lo), hi)       dx = g where lo <= x <= hi (inclusive), else 0
// scalars: lo, hi (NaN = no bound)
Grads clamp_backward(const BackwardContext& c) {
  const Tensor x = c.input(0);
  const double lo = c.scalars()[0], hi = c.scalars()[1];
  Tensor g = c.grad();
  if (!std::isnan(lo)) g = where(x >= lo, g, 0.0);
  if (!std::isnan(hi)) g = where(x <= hi, g, 0.0);
  return {g};
}

// maximum: out = max(a, b)       da = g where a > b, g/2 where a == b (ties split evenly), else 0
Grads maximum_backward(const BackwardContext& c) {
  const Tensor a = c.input(0), b = c.input(1);
  const Tensor& g = c.grad();
  const Tensor half = where(a == b, g * 0.5, 0.0);
  Grads r(2);
  if (c.needs_input_grad(0)) r[0] = unbroadcast(where(a > b, g, half), c.input_shape(0));
  if (c.needs_input_grad(1)) r[1] = unbroadcast(where(b > a, g, half), c.input_shape(1));
  return r;
}

// minimum: out = min(a, b)       da = g where a < b, g/2 where a == b, else 0
Grads minimum_backward(const BackwardContext& c) {
  const Tensor a = c.input(0), b = c.input(1);
  const Tensor& g = c.grad();
  const Tensor half = where(a == b, g * 0.5, 0.0);
  Grads r(2);
  if (c.needs_input_grad(0)) r[0] = unbroadcast(where(a < b, g, half), c.input_shape(0));
  if (c.needs_input_grad(1)) r[1] = unbroadcast(where(b < a, g, half), c.input_shape(1));
  return r;
}

// where: out = cond ? a : b      da = g where cond, else 0      db = g where !cond, else 0
// (cond is input 0, a bool tensor: no gradient)
Grads where_backward(const BackwardContext& c) {
  const Tensor cond = c.input(0);
  const Tensor& g = c.grad();
  Grads r(3);
  if (c.needs_input_grad(1)) r[1] = unbroadcast(where(cond, g, 0.0), c.input_shape(1));
  if (c.needs_input_grad(2)) r[2] = unbroadcast(where(cond, 0.0, g), c.input_shape(2));
  return r;
}

// to_dtype: out = x.to(dtype)    dx = g.to(x.dtype)
Grads to_dtype_backward(const BackwardContext& c) { return {c.grad().to(c.input_dtype(0))}; }

// clone: out = copy of x         dx = g
Grads clone_backward(const BackwardContext& c) { return {c.grad()}; }

const Derivative kRows[] = {
    {"add", "AddBackward0", add_backward, kSaveNothing},
    {"sub", "SubBackward0", sub_backward, kSaveNothing},
    {"mul", "MulBackward0", mul_backward, kSaveInput0 | kSaveInput1},
    {"div", "DivBackward0", div_backward, kSaveInput0 | kSaveInput1},
    {"pow", "PowBackward1", pow_backward, kSaveInput0 | kSaveInput1 | kSaveOutputs},
    {"pow_scalar", "PowBackward0", pow_scalar_backward, kSaveInput0},
    {"neg", "NegBackward0", neg_backward, kSaveNothing},
    {"abs", "AbsBackward0", abs_backward, kSaveInput0},
    {"exp", "ExpBackward0", exp_backward, kSaveOutputs},
    {"log", "LogBackward0", log_backward, kSaveInput0},
    {"sqrt", "SqrtBackward0", sqrt_backward, kSaveOutputs},
    {"tanh", "TanhBackward0", tanh_backward, kSaveOutputs},
    {"sigmoid", "SigmoidBackward0", sigmoid_backward, kSaveOutputs},
    {"relu", "ReluBackward0", relu_backward, kSaveOutputs},
    {"clamp", "ClampBackward1", clamp_backward, kSaveInput0},
    {"maximum", "MaximumBackward0", maximum_backward, kSaveInput0 | kSaveInput1},
    {"minimum", "MinimumBackward0", minimum_backward, kSaveInput0 | kSaveInput1},
    {"where", "WhereBackward0", where_backward, kSaveInput0},
    {"to_dtype", "ToCopyBackward0", to_dtype_backward, kSaveNothing},
    {"clone", "CloneBackward0", clone_backward, kSaveNothing},
};

}  // namespace

DerivativeTable elementwise_derivatives() { return {kRows, std::size(kRows)}; }

}  // namespace kindling::autograd
