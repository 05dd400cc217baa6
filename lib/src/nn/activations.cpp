// functional: the elementwise activations with a parameter -- LeakyReLU, SiLU, ELU, Hardtanh
// (ReLU6), Softplus. Each
// is one kernel for the value and one for the derivative, found together here with the
// autograd::Function that joins them (named like PyTorch's nodes: LeakyReluBackward0, ...).
// Both kernels read the *input* x (as PyTorch's backward formulas do), so only x is saved.
#include <cmath>
#include <string>

#include "kindling/autograd/function.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional {

namespace {

/// out[i] = f(x[i]) over a contiguous copy of x; f gets the element as T (float or double).
/// x: any shape → same shape, in x's compute dtype: float16/bfloat16 are widened (exactly) and
/// computed in float32, as PyTorch's CPU kernels do; the caller rounds once (forward: round_to; a
/// derivative stays float32 until it has multiplied the incoming gradient).
template <class F> Tensor map_elements(const Tensor& x, const char* op, F&& f) {
  kindling::detail::check_cpu(x, op);
  const Tensor xc =
      kindling::detail::contiguous_copy(kindling::detail::cast(x, kindling::detail::compute_dtype_of(x.dtype())));
  Tensor out = kindling::detail::make_tensor(x.shape(), xc.dtype(), x.device());
  kindling::detail::dispatch_floating(xc.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = xc.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const std::int64_t n = x.numel();
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
  });
  return out;
}
/// With create_graph (grad mode on in a backward) the derivatives below are written with recorded
/// ops, so that the gradient can be differentiated again (a gradient penalty); otherwise a kernel.
bool creating_graph() { return kindling::detail::grad_mode_enabled(); }

/// A float32 result rounded once to `like`'s 16-bit dtype (the identity for float32/float64).
Tensor round_to(const Tensor& wide, const Tensor& like) { return kindling::detail::cast(wide, like.dtype()); }

// leaky_relu_backward(g, x) = g · (x > 0 ? 1 : slope), as an op of its own for create_graph: a
// function of x too, with derivative 0 (PyTorch's LeakyReluBackwardBackward0), so a second grad
// gives zeros instead of refusing a gradient that does not require grad.
struct LeakyReluGrad : autograd::Function<LeakyReluGrad> {
  static constexpr const char* name = "LeakyReluBackwardBackward0";
  double slope = 0.01;
  Tensor forward(autograd::Context& ctx, const Tensor& g, const Tensor& x, double negative_slope) {
    slope = negative_slope;
    ctx.save_for_backward({x});
    return kindling::where(x > 0.0, g, g * slope);
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor& x = ctx.saved(0);
    return {LeakyReluGrad::apply(grads[0], x, slope), zeros_like(x)};
  }
};

// leaky_relu: out = x > 0 ? x : slope·x                 dx = g · (x > 0 ? 1 : slope)
struct LeakyRelu : autograd::Function<LeakyRelu> {
  static constexpr const char* name = "LeakyReluBackward0";
  double slope = 0.01;
  Tensor forward(autograd::Context& ctx, const Tensor& x, double negative_slope) {
    slope = negative_slope;
    ctx.save_for_backward({x});
    return round_to(map_elements(x, "leaky_relu", [s = slope](auto v) { return v > 0 ? v : v * static_cast<decltype(v)>(s); }), x);
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor& x = ctx.saved(0);
    if (creating_graph()) return {LeakyReluGrad::apply(grads[0], x, slope)};
    const Tensor d = map_elements(ctx.saved(0), "leaky_relu", [s = slope](auto v) {
      using T = decltype(v);
      return v > 0 ? T(1) : static_cast<T>(s);
    });
    return {round_to(grads[0] * d, ctx.saved(0))};  // g · f'(x) in float32 at least, rounded once
  }
};

// silu: out = x·σ(x)                                    dx = g · σ(x)·(1 + x·(1 - σ(x)))
struct Silu : autograd::Function<Silu> {
  static constexpr const char* name = "SiluBackward0";
  Tensor forward(autograd::Context& ctx, const Tensor& x) {
    ctx.save_for_backward({x});
    return round_to(map_elements(x, "silu", [](auto v) { return v / (decltype(v)(1) + std::exp(-v)); }), x);
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    if (creating_graph()) {
      const Tensor& x = ctx.saved(0);
      const Tensor s = kindling::sigmoid(x);
      return {grads[0] * (s * (1.0 + x * (1.0 - s)))};
    }
    const Tensor d = map_elements(ctx.saved(0), "silu", [](auto v) {
      using T = decltype(v);
      const T s = T(1) / (T(1) + std::exp(-v));
      return s * (T(1) + v * (T(1) - s));
    });
    return {round_to(grads[0] * d, ctx.saved(0))};  // g · f'(x) in float32 at least, rounded once
  }
};

// elu: out = x <= 0 ? α·(eˣ - 1) : x                    dx = g · (x <= 0 ? α·eˣ : 1)
// Tested as PyTorch's kernel tests it, x <= 0: a NaN takes the x branch (its gradient is g, not NaN),
// and -0 gives α·(e⁰ - 1) = +0.
struct Elu : autograd::Function<Elu> {
  static constexpr const char* name = "EluBackward0";
  double alpha = 1.0;
  Tensor forward(autograd::Context& ctx, const Tensor& x, double alpha_) {
    alpha = alpha_;
    ctx.save_for_backward({x});
    // expm1 keeps the digits of eˣ - 1 for x near 0, where exp(x) - 1 would cancel; at ±0 it would
    // keep the sign too, where PyTorch's (eˣ - 1)·α gives +0.
    return round_to(map_elements(x, "elu", [a = alpha](auto v) {
                      using T = decltype(v);
                      if (v > 0 || v != v) return v;
                      return static_cast<T>(a) * (v == 0 ? T(0) : std::expm1(v));
                    }),
                    x);
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    if (creating_graph()) {
      // PyTorch's EluBackwardBackward0 differentiates α·eˣ only where x < 0: at x = 0 the first
      // derivative is α (x <= 0) but the second is 0. And exp of x only where it is used (0
      // elsewhere): through the branch not taken the second derivative is 0, not 0 · exp(NaN) = NaN.
      const Tensor& x = ctx.saved(0);
      const Tensor neg = x < 0.0;
      const Tensor slope = kindling::where(neg, kindling::exp(kindling::where(neg, x, 0.0)) * alpha, 1.0);
      return {grads[0] * kindling::where(x == 0.0, slope * alpha, slope)};  // slope is the constant 1 at 0
    }
    const Tensor d = map_elements(ctx.saved(0), "elu", [a = alpha](auto v) {
      using T = decltype(v);
      return v <= 0 ? static_cast<T>(a) * std::exp(v) : T(1);
    });
    return {round_to(grads[0] * d, ctx.saved(0))};  // g · f'(x) in float32 at least, rounded once
  }
};

// hardtanh_backward(g, x) = g where min < x < max, else 0, as an op of its own for create_graph (a
// function of x too, with derivative 0: PyTorch's HardtanhBackwardBackward0). A NaN x passes g:
// PyTorch zeroes where x <= min or x >= max, and a NaN is neither.
struct HardtanhGrad : autograd::Function<HardtanhGrad> {
  static constexpr const char* name = "HardtanhBackwardBackward0";
  double lo = -1.0, hi = 1.0;
  Tensor forward(autograd::Context& ctx, const Tensor& g, const Tensor& x, double min_val, double max_val) {
    lo = min_val;
    hi = max_val;
    ctx.save_for_backward({x});
    const Tensor zero = zeros_like(g);
    return kindling::where(x <= lo, zero, kindling::where(x >= hi, zero, g));
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor& x = ctx.saved(0);
    return {HardtanhGrad::apply(grads[0], x, lo, hi), zeros_like(x)};
  }
};

// hardtanh: out = min(max(x, min), max)                 dx = g · (min < x < max)
// clamp gives the values; its gradient also passes at the bounds themselves, PyTorch's does not.
struct Hardtanh : autograd::Function<Hardtanh> {
  static constexpr const char* name = "HardtanhBackward0";
  double lo = -1.0, hi = 1.0;
  Tensor forward(autograd::Context& ctx, const Tensor& x, double min_val, double max_val) {
    lo = min_val;
    hi = max_val;
    ctx.save_for_backward({x});
    return x.clamp(lo, hi);
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    return {HardtanhGrad::apply(grads[0], ctx.saved(0), lo, hi)};
  }
};

// softplus: out = β·x > threshold ? x : log(1 + e^(β·x)) / β     dx = g · (β·x > threshold ? 1 : σ(β·x))
// Above the threshold log(1 + e^(βx))/β equals x to float precision, and e^(βx) would overflow.
struct Softplus : autograd::Function<Softplus> {
  static constexpr const char* name = "SoftplusBackward0";
  double beta = 1.0, threshold = 20.0;
  Tensor forward(autograd::Context& ctx, const Tensor& x, double beta_, double threshold_) {
    beta = beta_;
    threshold = threshold_;
    ctx.save_for_backward({x});
    return round_to(map_elements(x, "softplus", [b = beta, t = threshold](auto v) {
      using T = decltype(v);
      const T bx = v * static_cast<T>(b);
      return bx > static_cast<T>(t) ? v : std::log1p(std::exp(bx)) / static_cast<T>(b);
    }), x);
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    if (creating_graph()) {
      const Tensor& x = ctx.saved(0);
      return {grads[0] * kindling::where(x * beta > threshold, 1.0, kindling::sigmoid(x * beta))};
    }
    const Tensor d = map_elements(ctx.saved(0), "softplus", [b = beta, t = threshold](auto v) {
      using T = decltype(v);
      const T bx = v * static_cast<T>(b);
      if (bx > static_cast<T>(t)) return T(1);
      const T z = std::exp(bx);
      return z / (z + T(1));
    });
    return {round_to(grads[0] * d, ctx.saved(0))};  // g · f'(x) in float32 at least, rounded once
  }
};

}  // namespace

Tensor leaky_relu(const Tensor& x, double negative_slope) { return LeakyRelu::apply(x, negative_slope); }
Tensor silu(const Tensor& x) { return Silu::apply(x); }
Tensor elu(const Tensor& x, double alpha) { return Elu::apply(x, alpha); }
Tensor hardtanh(const Tensor& x, double min_val, double max_val) {
  if (x.dtype() == kBool) throw DTypeError("hardtanh: bool inputs are not supported. Hint: x.to(kFloat32)");
  if (!(min_val <= max_val)) {
    throw ValueError("hardtanh: max_val (" + std::to_string(max_val) + ") must be >= min_val (" +
                     std::to_string(min_val) + ")");
  }
  // An integer x: the bounds as integers, truncated (PyTorch keeps x's dtype; clamp by doubles would
  // promote). A bound outside int64 is refused, as PyTorch does; casting it would be undefined.
  if (!x.is_floating_point()) {
    auto as_int = [](double v) {
      if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {  // [-2^63, 2^63)
        throw ValueError("hardtanh: the bound " + std::to_string(v) + " cannot be converted to int64 without "
                         "overflow (the input is an integer tensor)");
      }
      return Scalar(static_cast<std::int64_t>(v));
    };
    return x.clamp(as_int(min_val), as_int(max_val));
  }
  return Hardtanh::apply(x, min_val, max_val);
}
Tensor relu6(const Tensor& x) { return hardtanh(x, 0.0, 6.0); }
Tensor softplus(const Tensor& x, double beta, double threshold) {
  return Softplus::apply(x, beta, threshold);
}

}  // namespace kindling::nn::functional
