// Backward of tensor/binary_ops.cpp: add, sub, mul, div, pow, maximum, minimum, floor_divide, remainder,
// xlogy.
//
// Each Function below is the derivative of one forward op: `setup_context` runs right after the
// forward (it gets the op's arguments and output, and saves what backward needs), `backward` turns
// the gradient of the output (`grad[0]`) into one gradient per tensor input. The formulas are
// written for the *broadcast* shape -- `{g * b, g * a}` -- and the engine sums each result back to
// its input's shape (sum_to): broadcasting an input in the forward pass means one input element fed
// several output elements, so its gradient is the sum of theirs.
#include "autograd/pieces.hpp"
#include "autograd/registry.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

// add: out = a + alpha * b                      da = g            db = alpha * g
struct Add : Function<Add> {
  static constexpr const char* name = "AddBackward0";
  double alpha = 1;
  void setup_context(Context&, const Tensor&, const Tensor&, const Scalar& alpha_, const Tensor&) {
    alpha = alpha_.to_double();
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    return {g, ctx.needs_input_grad(1) ? (alpha == 1.0 ? g : g * alpha) : Tensor()};
  }
};

// sub: out = a - alpha * b                      da = g            db = -alpha * g
struct Sub : Function<Sub> {
  static constexpr const char* name = "SubBackward0";
  double alpha = 1;
  void setup_context(Context&, const Tensor&, const Tensor&, const Scalar& alpha_, const Tensor&) {
    alpha = alpha_.to_double();
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    return {g, ctx.needs_input_grad(1) ? (alpha == 1.0 ? -g : g * (-alpha)) : Tensor()};
  }
};

// rsub: out = other - alpha * x (other a number)       dx = -alpha * g
struct Rsub : Function<Rsub> {
  static constexpr const char* name = "RsubBackward1";
  double alpha = 1;
  void setup_context(Context&, const Tensor&, const Scalar&, const Scalar& alpha_, const Tensor&) {
    alpha = alpha_.to_double();
  }
  Grads backward(Context&, const Grads& grad) { return {alpha == 1.0 ? -grad[0] : grad[0] * (-alpha)}; }
};

// mul and div: the Functions Mul and Div of autograd/pieces.hpp, whose backward is chapter 2's
// exercise 1 (solutions/ch02/ex1_derivatives.cpp); here is what their forward saves.
// pow (tensor exponent): out = a ** e
// da = g * e * a^(e-1)   (0 where e == 0, so 0**0 does not give nan)
// de = g * out * log(a)  (0 where a == 0 and e >= 0: the limit, as PyTorch does)
struct Pow : Function<Pow> {
  static constexpr const char* name = "PowBackward1";
  void setup_context(Context& ctx, const Tensor& a, const Tensor& e, const Tensor& out) {
    ctx.save_for_backward({a, e, ctx.needs_input_grad(1) ? out : Tensor()});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    const Tensor a = ctx.saved(0), e = ctx.saved(1);
    Grads r(2);
    if (ctx.needs_input_grad(0)) r[0] = where(e == 0.0, 0.0, g * e * a.pow(e - 1.0));
    if (ctx.needs_input_grad(1)) {
      const Tensor de = g * ctx.saved(2) * a.log();
      r[1] = where(a == 0.0, where(e >= 0.0, 0.0, de), de);
    }
    return r;
  }
};

// pow_scalar: out = a ** p                      da = g * p * a^(p-1)   (0 for p == 0)
struct PowScalar : Function<PowScalar> {
  static constexpr const char* name = "PowBackward0";
  double exponent = 1;
  void setup_context(Context& ctx, const Tensor& a, const Scalar& exponent_, const Tensor&) {
    exponent = exponent_.to_double();
    ctx.save_for_backward({a});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    if (exponent == 0.0) return {zeros_like(grad[0])};
    return {grad[0] * (ctx.saved(0).pow(exponent - 1.0) * exponent)};
  }
};

// maximum: out = max(a, b)    da = 0 where a < b, g/2 where a == b (ties split evenly), else g
// minimum: out = min(a, b)    da = 0 where a > b, g/2 where a == b, else g
// Written as PyTorch writes it, by where each input *loses*: where a or b is NaN (the result is NaN)
// neither loses nor ties, and both get the whole gradient.
template <bool IsMax>
struct Extreme : Function<Extreme<IsMax>> {
  static constexpr const char* name = IsMax ? "MaximumBackward0" : "MinimumBackward0";
  void setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor&) { ctx.save_for_backward({a, b}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor a = ctx.saved(0), b = ctx.saved(1);
    const Tensor shared = where(a == b, grad[0] * 0.5, grad[0]);
    Grads r(2);
    if (ctx.needs_input_grad(0)) r[0] = where(IsMax ? a < b : a > b, 0.0, shared);
    if (ctx.needs_input_grad(1)) r[1] = where(IsMax ? b < a : b > a, 0.0, shared);
    return r;
  }
};

// remainder: out = a - floor(a / b) * b    da = g    db = -g * floor(a / b)
// (floor is flat almost everywhere, so out moves with a one for one, and with b by -a // b.)
// a.div(b, rounding_mode="floor") as remainder's backward uses it: the value of floor_divide, and a
// derivative of 0 for both operands (the quotient is piecewise constant). With create_graph it keeps
// the gradient a function of a and b, so a second grad through remainder gives zeros, as in PyTorch,
// where floor_divide's own backward refuses.
struct FloorQuotient : Function<FloorQuotient> {
  static constexpr const char* name = "DivBackward3";
  Tensor forward(Context&, const Tensor& a, const Tensor& b) { return floor_divide(a, b); }
  Grads backward(Context&, const Grads& grad) { return {zeros_like(grad[0]), zeros_like(grad[0])}; }
};

struct Remainder : Function<Remainder> {
  static constexpr const char* name = "RemainderBackward1";
  void setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor&) {
    ctx.save_for_backward({ctx.needs_input_grad(1) ? a : Tensor(), ctx.needs_input_grad(1) ? b : Tensor()});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    if (!ctx.needs_input_grad(1)) return {g, Tensor()};
    const Tensor q = kindling::detail::grad_mode_enabled() ? FloorQuotient::apply(ctx.saved(0), ctx.saved(1))
                                                           : floor_divide(ctx.saved(0), ctx.saved(1));
    return {g, -g * q};
  }
};

// floor_divide: out = floor(a / b). A step function: PyTorch 1.13 defines no derivative and its
// backward raises; so does this one, rather than silently returning zeros.
struct FloorDivide : Function<FloorDivide> {
  static constexpr const char* name = "FloorDivideBackward0";
  void setup_context(Context&, const Tensor&, const Tensor&, const Tensor&) {}
  Grads backward(Context&, const Grads&) {
    throw AutogradError("FloorDivideBackward0: the derivative of floor_divide (a // b) is not implemented, as in "
                        "PyTorch (it is 0 almost everywhere). Hint: detach() the operands if you only need the "
                        "value, or use div(a, b) for a differentiable quotient.");
  }
};

// xlogy: out = x · log(y), 0 where x == 0
// dx = xlogy(g, y), but 0 where x == 0 and y <= 0   (PyTorch 1.13's formula: log y is -inf or nan
//      there, and the forward is the constant 0 along x at x = 0)
// dy = g · x / y                 (0 / 0 = nan where x == y == 0, exactly PyTorch 1.13's answer)
struct Xlogy : Function<Xlogy> {
  static constexpr const char* name = "XlogyBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor& y, const Tensor&) { ctx.save_for_backward({x, y}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor x = ctx.saved(0), y = ctx.saved(1);
    const Tensor& g = grad[0];
    Grads r(2);
    if (ctx.needs_input_grad(0)) {
      const Tensor dx = xlogy(g, y);
      r[0] = where(x == 0.0, where(y <= 0.0, 0.0, dx), dx);
    }
    if (ctx.needs_input_grad(1)) r[1] = g * x / y;
    return r;
  }
};

}  // namespace

// mul: out = a * b                              da = g * b        db = g * a
void Mul::setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor&) {
  // Save only what the other gradient needs: b for da, a for db.
  ctx.save_for_backward({ctx.needs_input_grad(1) ? a : Tensor(), ctx.needs_input_grad(0) ? b : Tensor()});
}

// div: out = a / b                              da = g / b        db = -g * a / b²
void Div::setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor&) {
  ctx.save_for_backward({ctx.needs_input_grad(1) ? a : Tensor(), b});
}

void register_binary_ops(Registry& r) {
  r.add<Add>("add");
  r.add<Sub>("sub");
  r.add<Rsub>("rsub");
  r.add<Mul>("mul");
  r.add<Div>("div");
  r.add<Pow>("pow");
  r.add<PowScalar>("pow_scalar");
  r.add<Extreme<true>>("maximum");
  r.add<Extreme<false>>("minimum");
  r.add<Remainder>("remainder");
  r.add<FloorDivide>("floor_divide");
  r.add<Xlogy>("xlogy");
}

}  // namespace kindling::autograd
