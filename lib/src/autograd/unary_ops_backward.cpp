// Backward of tensor/unary_ops.cpp: neg, abs, exp, log, sqrt, tanh, sigmoid, relu, clamp.
// `g` is the gradient w.r.t. the output; each backward multiplies it by the local derivative.
// Where the derivative is best written with the output (exp, tanh, sigmoid, sqrt, relu), the
// output is saved instead of the input.
#include <cstdint>
#include <limits>

#include "autograd/pieces.hpp"
#include "autograd/registry.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/device_ops.hpp"
#include "tensor/internal.hpp"
#include "tensor/loops.hpp"

namespace kindling::autograd {
namespace {

/// g * f(y) in one loop and one new tensor, for a plain backward (grad mode off): PyTorch's
/// tanh_backward / sigmoid_backward kernels. With create_graph (grad mode on) the formulas are
/// written with recorded ops instead, so that the gradient can be differentiated again.
/// g and y have the output's shape and dtype (the engine sees to it).
template <class F>
Tensor fused_grad(const Tensor& g, const Tensor& y, const char* op, F f) {
  Tensor out = kindling::detail::make_tensor(y.shape(), y.dtype());
  kindling::detail::dispatch_floating(y.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kindling::detail::binary_loop<T, T, T>(out, g, y, [&](T gv, T yv) { return f(gv, yv); });
  });
  return out;
}
// (float16/bfloat16 take the recorded ops, which compute in float32 and round once.)
bool plain_backward(const Tensor& g, const Tensor& y) {
  return !kindling::detail::grad_mode_enabled() && g.dtype() == y.dtype() && g.shape() == y.shape() &&
         !is_reduced_floating_point(y.dtype());
}

// neg: out = -x                  dx = -g
struct Neg : Function<Neg> {
  static constexpr const char* name = "NegBackward0";
  void setup_context(Context&, const Tensor&, const Tensor&) {}
  Grads backward(Context&, const Grads& grad) { return {-grad[0]}; }
};

// abs: out = |x|                 dx = g * sign(x)       (sign(0) = 0, like PyTorch)
struct Abs : Function<Abs> {
  static constexpr const char* name = "AbsBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor&) { ctx.save_for_backward({x}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor x = ctx.saved(0);
    const Tensor& g = grad[0];
    // PyTorch's formula, g * sgn(x): with create_graph the result depends on x through sign, whose
    // derivative is 0, so differentiating it again gives zeros (a where() on a mask would cut x off
    // and a second grad would refuse it as not requiring grad).
    return {g * x.sign()};
  }
};

// exp and tanh: the Functions Exp and Tanh of autograd/pieces.hpp (their backward is chapter 2's
// exercise 1); their setup_context is below the namespace.

// reciprocal: out = 1 / x        dx = -g * out²
struct Reciprocal : Function<Reciprocal> {
  static constexpr const char* name = "ReciprocalBackward0";
  void setup_context(Context& ctx, const Tensor&, const Tensor& out) { ctx.save_for_backward({out}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor y = ctx.saved(0);
    return {-grad[0] * (y * y)};
  }
};

// log: out = ln x                dx = g / x
struct Log : Function<Log> {
  static constexpr const char* name = "LogBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor&) { ctx.save_for_backward({x}); }
  Grads backward(Context& ctx, const Grads& grad) { return {grad[0] / ctx.saved(0)}; }
};

// sqrt: out = √x                 dx = g / (2 out)
struct Sqrt : Function<Sqrt> {
  static constexpr const char* name = "SqrtBackward0";
  void setup_context(Context& ctx, const Tensor&, const Tensor& out) { ctx.save_for_backward({out}); }
  Grads backward(Context& ctx, const Grads& grad) { return {grad[0] / (ctx.saved(0) * 2.0)}; }
};

// [snippet: sigmoid]
// sigmoid: out = σ(x)            dx = g * out * (1 - out)
struct Sigmoid : Function<Sigmoid> {
  static constexpr const char* name = "SigmoidBackward0";
  void setup_context(Context& ctx, const Tensor&, const Tensor& out) {
    ctx.save_for_backward({out});  // the derivative is written with the output
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor y = ctx.saved(0);
    if (plain_backward(grad[0], y)) {  // one loop, like PyTorch's sigmoid_backward
      return {fused_grad(grad[0], y, "sigmoid_backward",
                         [](auto g, auto v) { return g * v * (1 - v); })};
    }
    return {grad[0] * y * (1.0 - y)};  // create_graph: recorded, differentiable again
  }
};
// [end]

// relu's gradient in float16/bfloat16 (autocast's activations): a pure select, with no arithmetic
// to round, so one loop over the 16-bit patterns gives what where(y <= 0, 0, g) gives. y <= 0
// exactly when its pattern is +0 or has the sign bit set without being a NaN (magnitude <= inf).
// Contiguous operands only.
Tensor relu_backward_16bit(const Tensor& g, const Tensor& y) {
  const std::uint16_t inf = y.dtype() == kFloat16 ? 0x7C00 : 0x7F80;
  auto at_most_zero = [inf](std::uint16_t bits) {
    return bits == 0 || ((bits & 0x8000) != 0 && (bits & 0x7FFF) <= inf);
  };
  Tensor out = kindling::detail::make_tensor(y.shape(), y.dtype());
  const auto* gp = static_cast<const std::uint16_t*>(g.raw_data_ptr());
  const auto* yp = static_cast<const std::uint16_t*>(y.raw_data_ptr());
  auto* op = static_cast<std::uint16_t*>(out.raw_data_ptr());
  const std::int64_t n = y.numel();
  for (std::int64_t i = 0; i < n; ++i) op[i] = at_most_zero(yp[i]) ? std::uint16_t{0} : gp[i];
  return out;
}

// relu: out = max(x, 0)          dx = 0 where out <= 0, else g   (0 at x == 0, like PyTorch)
// The test is PyTorch's threshold_backward, `y <= 0 ? 0 : g`, not `y > 0 ? g : 0`: the two differ at
// NaN, where PyTorch passes the gradient through (relu lets a NaN through, and so does its gradient).
// threshold_backward(g, y) = 0 where y <= 0, else g: relu's gradient as an op of its own, so that with
// create_graph the gradient is a function of y too (PyTorch's ThresholdBackwardBackward0): its
// derivative is threshold_backward again for g and zero for y. A second grad of relu's gradient
// then gives zeros, as in PyTorch, instead of refusing a result that does not require grad.
struct ThresholdBackward : Function<ThresholdBackward> {
  static constexpr const char* name = "ThresholdBackwardBackward0";
  Tensor forward(Context& ctx, const Tensor& g, const Tensor& y) {
    ctx.save_for_backward({y});
    return where(y <= 0.0, 0.0, g);
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor y = ctx.saved(0);
    return {ThresholdBackward::apply(grad[0], y), zeros_like(y)};
  }
};

struct Relu : Function<Relu> {
  static constexpr const char* name = "ReluBackward0";
  void setup_context(Context& ctx, const Tensor&, const Tensor& out) { ctx.save_for_backward({out}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor y = ctx.saved(0);
    const Tensor& gout = grad[0];
    // No graph to build, the gradient in y's dtype and shape: one loop (a kernel), no mask tensor.
    const bool plain =
        !kindling::detail::grad_mode_enabled() && gout.dtype() == y.dtype() && gout.shape() == y.shape();
    // On a device: its threshold_backward kernel (tensor/device_ops.hpp), float32 or 16-bit.
    if (const auto* dev = kindling::detail::device_ops(y); dev && dev->relu_backward && plain &&
        kindling::detail::device_float(y.dtype()) && gout.device() == y.device())
      return {dev->relu_backward(gout, y)};
    // float16/bfloat16 on the CPU: the select over 16-bit patterns (the fused loop below is float32/64).
    if (plain && is_reduced_floating_point(y.dtype()) && y.device().is_cpu() && gout.is_contiguous() &&
        y.is_contiguous())
      return {relu_backward_16bit(gout, y)};
    if (plain_backward(grad[0], y))  // threshold_backward: one loop, no mask tensor
      return {fused_grad(grad[0], y, "threshold_backward",
                         [](auto g, auto v) { return v <= 0 ? decltype(g)(0) : g; })};
    if (kindling::detail::grad_mode_enabled()) return {ThresholdBackward::apply(grad[0], y)};  // create_graph
    return {where(y <= 0.0, 0.0, grad[0])};
  }
};

// clamp: out = min(max(x, lo), hi)       dx = g where lo <= x <= hi (inclusive), else 0
struct Clamp : Function<Clamp> {
  static constexpr const char* name = "ClampBackward1";
  std::optional<double> min, max;
  void setup_context(Context& ctx, const Tensor& x, const std::optional<Scalar>& min_,
                     const std::optional<Scalar>& max_, const Tensor&) {
    if (min_) min = min_->to_double();
    if (max_) max = max_->to_double();
    ctx.save_for_backward({x});
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor x = ctx.saved(0);
    Tensor g = grad[0];
    if (min) g = where(x >= *min, g, 0.0);
    if (max) g = where(x <= *max, g, 0.0);
    return {g};
  }
};

// sin: out = sin x              dx = g * cos x
struct Sin : Function<Sin> {
  static constexpr const char* name = "SinBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor&) { ctx.save_for_backward({x}); }
  Grads backward(Context& ctx, const Grads& grad) { return {grad[0] * ctx.saved(0).cos()}; }
};

// cos: out = cos x              dx = -g * sin x
struct Cos : Function<Cos> {
  static constexpr const char* name = "CosBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor&) { ctx.save_for_backward({x}); }
  Grads backward(Context& ctx, const Grads& grad) { return {-grad[0] * ctx.saved(0).sin()}; }
};

// log1p: out = ln(1 + x)        dx = g / (1 + x)
struct Log1p : Function<Log1p> {
  static constexpr const char* name = "Log1PBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor&) { ctx.save_for_backward({x}); }
  Grads backward(Context& ctx, const Grads& grad) { return {grad[0] / (ctx.saved(0) + 1.0)}; }
};

// expm1: out = e^x - 1          dx = g * (out + 1)     (saves the output)
struct Expm1 : Function<Expm1> {
  static constexpr const char* name = "Expm1Backward0";
  void setup_context(Context& ctx, const Tensor&, const Tensor& out) { ctx.save_for_backward({out}); }
  Grads backward(Context& ctx, const Grads& grad) { return {grad[0] * (ctx.saved(0) + 1.0)}; }
};

// erf: out = erf x              dx = g * 2/√π * e^(-x²)
struct Erf : Function<Erf> {
  static constexpr const char* name = "ErfBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor&) { ctx.save_for_backward({x}); }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor x = ctx.saved(0);
    return {grad[0] * (-(x * x)).exp() * 1.1283791670955126};  // 2 / sqrt(pi)
  }
};

// floor, ceil, round, trunc, sign: piecewise constant, so dx = 0 (PyTorch's convention at the jumps too)
template <const char* Name>
struct ZeroGrad : Function<ZeroGrad<Name>> {
  static constexpr const char* name = Name;
  void setup_context(Context&, const Tensor&, const Tensor&) {}
  Grads backward(Context&, const Grads& grad) { return {zeros_like(grad[0])}; }
};
constexpr char kFloor[] = "FloorBackward0";
constexpr char kCeil[] = "CeilBackward0";
constexpr char kRound[] = "RoundBackward0";
constexpr char kTrunc[] = "TruncBackward0";
constexpr char kSign[] = "SignBackward0";

}  // namespace

// exp: out = e^x                 dx = g * out           (saves the output, not x)
void Exp::setup_context(Context& ctx, const Tensor&, const Tensor& out) { ctx.save_for_backward({out}); }

// tanh: out = tanh x             dx = g * (1 - out²)
void Tanh::setup_context(Context& ctx, const Tensor&, const Tensor& out) { ctx.save_for_backward({out}); }

// [snippet: register]
void register_unary_ops(Registry& r) {
  r.add<Sin>("sin");
  r.add<Cos>("cos");
  r.add<Log1p>("log1p");
  r.add<Expm1>("expm1");
  r.add<Erf>("erf");
  r.add<ZeroGrad<kFloor>>("floor");
  r.add<ZeroGrad<kCeil>>("ceil");
  r.add<ZeroGrad<kRound>>("round");
  r.add<ZeroGrad<kTrunc>>("trunc");
  r.add<ZeroGrad<kSign>>("sign");
  r.add<Neg>("neg");
  r.add<Abs>("abs");
  r.add<Exp>("exp");
  r.add<Reciprocal>("reciprocal");
  r.add<Log>("log");
  r.add<Sqrt>("sqrt");
  r.add<Tanh>("tanh");
  r.add<Sigmoid>("sigmoid");
  r.add<Relu>("relu");
  r.add<Clamp>("clamp");
}
// [end]

}  // namespace kindling::autograd
