// functional: activations, linear, dropout, flatten. Most are compositions of tensor ops (and so
// differentiable for free); GELU needs erf, which has no tensor op, so it brings its own node.
#include <cmath>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/autocast_mode.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/tensor/random.hpp"
#include "nn/checks.hpp"
#include "kindling/autograd/function.hpp"
#include "nn/pieces.hpp"

#include <type_traits>

#include <xsimd/xsimd.hpp>
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional {

Tensor relu(const Tensor& x) { return x.relu(); }
Tensor sigmoid(const Tensor& x) { return x.sigmoid(); }
Tensor tanh(const Tensor& x) { return x.tanh(); }
Tensor softmax(const Tensor& x, std::int64_t dim) { return x.softmax(dim); }
Tensor log_softmax(const Tensor& x, std::int64_t dim) { return x.log_softmax(dim); }
Tensor flatten(const Tensor& x, std::int64_t start_dim, std::int64_t end_dim) { return x.flatten(start_dim, end_dim); }

// ---- linear -----------------------------------------------------------------------------------
Tensor linear(const Tensor& x_in, const Tensor& weight_in, const Tensor& bias_in) {
  // Under autocast linear runs in the autocast dtype, bias included (PyTorch's lower-precision list).
  const Tensor x = kindling::detail::autocast_to_lower(x_in);
  const Tensor weight = kindling::detail::autocast_to_lower(weight_in);
  const Tensor bias = kindling::detail::autocast_to_lower(bias_in);
  detail::check_same_device("linear", {{"input", &x}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 2) {
    throw ShapeError("linear: weight must be 2-D [out_features, in_features] but has shape " +
                     shape_str(weight.shape()));
  }
  if (x.dim() < 1 || x.size(-1) != weight.size(1)) {
    throw ShapeError("linear: input of shape " + shape_str(x.shape()) + " cannot go through a layer with in_features=" +
                     std::to_string(weight.size(1)) + " (weight " + shape_str(weight.shape()) +
                     "): the last dimension of the input must be " + std::to_string(weight.size(1)) +
                     ". Hint: flatten images first (x.flatten(1)), or check the previous layer's out_features.");
  }
  detail::check_same_dtype("linear", {{"input", &x}, {"weight", &weight}, {"bias", &bias}});
  return detail::linear_forward(x, weight, bias);  // chapter 3's exercise 1 (nn/pieces.hpp)
}

// dropout is chapter 3's exercise 3 (nn/pieces.hpp): in the answer file.

// ---- GELU -------------------------------------------------------------------------------------
namespace {
constexpr double kSqrt1_2 = 0.70710678118654752440;  // 1/√2
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1/√(2π)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // √(2/π)
constexpr double kTanhCoef = 0.044715;

template <class T> T gelu_value(T x, bool tanh_form) {
  if (tanh_form) {
    const T inner = static_cast<T>(kSqrt2OverPi) * (x + static_cast<T>(kTanhCoef) * x * x * x);
    return T(0.5) * x * (T(1) + std::tanh(inner));
  }
  return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(kSqrt1_2)));
}

// d/dx [x·Φ(x)] = Φ(x) + x·φ(x); for the tanh form, the derivative of its formula.
template <class T> T gelu_grad(T x, bool tanh_form) {
  if (tanh_form) {
    const T k = static_cast<T>(kSqrt2OverPi), c = static_cast<T>(kTanhCoef);
    const T t = std::tanh(k * (x + c * x * x * x));
    return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * k * (T(1) + T(3) * c * x * x);
  }
  const T cdf = T(0.5) * (T(1) + std::erf(x * static_cast<T>(kSqrt1_2)));
  const T pdf = static_cast<T>(kInvSqrt2Pi) * std::exp(T(-0.5) * x * x);
  return cdf + x * pdf;
}

// The same formulas on float32, a SIMD register at a time (xsimd's tanh, erf and exp: a few ulp
// from libm's, and 10-20x faster than calling libm per element; GPT's MLPs spend a third of a step
// here otherwise). Returns how many leading elements it wrote; the caller does the tail.
std::int64_t gelu_simd(const float* in, float* o, std::int64_t n, bool tanh_form, bool derivative) {
  using B = xsimd::batch<float>;
  constexpr auto W = static_cast<std::int64_t>(B::size);
  const B half(0.5F), one(1.0F), k(static_cast<float>(kSqrt2OverPi)), c(static_cast<float>(kTanhCoef));
  const B s12(static_cast<float>(kSqrt1_2)), inv_s2pi(static_cast<float>(kInvSqrt2Pi));
  std::int64_t i = 0;
  for (; i + W <= n; i += W) {
    const B x = B::load_unaligned(in + i);
    B r;
    if (tanh_form) {
      const B t = xsimd::tanh(k * (x + c * x * x * x));
      r = derivative ? half * (one + t) + half * x * (one - t * t) * k * (one + B(3.0F) * c * x * x)
                     : half * x * (one + t);
    } else {
      const B cdf = half * (one + xsimd::erf(x * s12));
      r = derivative ? cdf + x * inv_s2pi * xsimd::exp(B(-0.5F) * x * x) : x * cdf;
    }
    r.store_unaligned(o + i);
  }
  return i;
}

// In x's compute dtype: float16/bfloat16 are widened exactly and computed in float32; the caller
// rounds once (the value right away, the derivative after multiplying the incoming gradient).
Tensor gelu_kernel(const Tensor& x, bool tanh_form, bool derivative) {
  Tensor xc =
      kindling::detail::contiguous_copy(kindling::detail::cast(x, kindling::detail::compute_dtype_of(x.dtype())));
  Tensor out = kindling::detail::make_tensor(x.shape(), xc.dtype(), x.device());
  kindling::detail::dispatch_floating(xc.dtype(), "gelu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = xc.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const std::int64_t n = x.numel();
    std::int64_t i = 0;
    if constexpr (std::is_same_v<T, float>) i = gelu_simd(in, o, n, tanh_form, derivative);
    for (; i < n; ++i) o[i] = derivative ? gelu_grad(in[i], tanh_form) : gelu_value(in[i], tanh_form);
  });
  return out;
}

// gelu: out = x·Φ(x) (or its tanh approximation)        dx = g · gelu'(x)
struct Gelu : autograd::Function<Gelu> {
  static constexpr const char* name = "GeluBackward0";
  bool tanh_form = false;
  Tensor forward(autograd::Context& ctx, const Tensor& x, bool tanh_form_) {
    tanh_form = tanh_form_;
    ctx.save_for_backward({x});
    return kindling::detail::cast(gelu_kernel(x, tanh_form, /*derivative=*/false), x.dtype());
  }
  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor& x = ctx.saved(0);
    if (kindling::detail::grad_mode_enabled()) {
      // create_graph: gelu'(x) written with recorded ops, so the gradient can be differentiated
      // again (gradient penalties); a kernel otherwise.
      if (tanh_form) {
        const Tensor t = kindling::tanh((x + x * x * x * kTanhCoef) * kSqrt2OverPi);
        const Tensor d = (1.0 + t) * 0.5 + x * 0.5 * (1.0 - t * t) * kSqrt2OverPi * (1.0 + x * x * (3.0 * kTanhCoef));
        return {grads[0] * d};
      }
      const Tensor cdf = (1.0 + kindling::erf(x * kSqrt1_2)) * 0.5;
      const Tensor pdf = kindling::exp(x * x * -0.5) * kInvSqrt2Pi;
      return {grads[0] * (cdf + x * pdf)};
    }
    return {kindling::detail::cast(grads[0] * gelu_kernel(x, tanh_form, /*derivative=*/true), x.dtype())};
  }
};
}  // namespace

Tensor gelu(const Tensor& x, const std::string& approximate) {
  if (approximate != "none" && approximate != "tanh") {
    throw ValueError("gelu: approximate must be 'none' or 'tanh', got '" + approximate + "'");
  }
  kindling::detail::check_cpu(x, "gelu");
  return Gelu::apply(x, approximate == "tanh");
}

}  // namespace kindling::nn::functional
