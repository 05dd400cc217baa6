// Elementwise unary math: neg, abs, exp, log, sqrt, tanh, sigmoid, relu, clamp, and the rest of the
// pointwise functions a learner reaches for: sin, cos, log1p, expm1, erf, floor, ceil, round, trunc, sign.
//
// Dtype rules follow PyTorch: neg/abs/relu/clamp keep the input's dtype (integers stay integers), while
// the transcendental functions (exp, log, sqrt, tanh, sigmoid) turn integer and bool inputs into
// float32 — torch.exp(torch.tensor([1, 2])) is a float tensor.
#include <cmath>
#include <limits>
#include <type_traits>

#include "dispatch.hpp"
#include "device_ops.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "loops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

void refuse_bool(const Tensor& x, const char* op, const char* hint) {
  if (x.dtype() == kBool) {
    throw DTypeError(std::string(op) + ": bool tensors are not supported (shape " + shape_str(x.shape()) +
                     "). Hint: " + hint);
  }
}

/// out = f(x) in x's floating dtype (float32 for integer/bool inputs), recorded as op `Key`.
template <OpKey Key, class F> Tensor float_unary(const Tensor& x, F f) {
  const char* op = Key.str;
  check_cpu(x, op);
  const DType dt = is_floating_point(x.dtype()) ? x.dtype() : kFloat32;
  Tensor out = make_tensor(x.shape(), dt);
  via_float32(out, [&](const Tensor& o) {
    const Tensor xc = cast(x, o.dtype());
    dispatch_floating(o.dtype(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      unary_loop<T, T>(o, xc, [&f](T v) { return static_cast<T>(f(v)); });
    });
  });
  return record<Key>(out, x);
}

/// out = f(x) in x's own dtype, recorded as op `Key`.
template <OpKey Key, class F> Tensor same_dtype_unary(const Tensor& x, F f) {
  const char* op = Key.str;
  check_cpu(x, op);
  Tensor out = make_tensor(x.shape(), x.dtype());
  via_float32(out, [&](const Tensor& o) {
    const Tensor xc = cast(x, o.dtype());
    dispatch(o.dtype(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      unary_loop<T, T>(o, xc, [&f](T v) { return static_cast<T>(f(v)); });
    });
  });
  return record<Key>(out, x);
}

/// The dtype clamp computes in: the input's, raised by the bounds like `x + bound` would be.
DType clamp_dtype(const Tensor& x, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                  const char* op) {
  if (!lo && !hi) {
    throw ValueError(std::string(op) + ": at least one of 'min' or 'max' must be given (both are "
                     "std::nullopt). Hint: x.clamp(0) keeps x >= 0; x.clamp(std::nullopt, 1) keeps x <= 1.");
  }
  DType dt = x.dtype();
  if (lo) dt = promote_with_scalar(dt, *lo);
  if (hi) dt = promote_with_scalar(dt, *hi);
  // The bounds are stored in the result's dtype: clamp(uint8, 0, 300) raises, as in PyTorch.
  if (lo) check_scalar_fits(*lo, dt, op);
  if (hi) check_scalar_fits(*hi, dt, op);
  return dt;
}

/// out = clamp(x, lo, hi); NaN stays NaN, and min > max gives max everywhere (as in PyTorch).
void clamp_kernel(const Tensor& out, const Tensor& x, const std::optional<Scalar>& lo,
                  const std::optional<Scalar>& hi) {
  if (is_reduced_floating_point(out.dtype())) {
    via_float32(out, [&](const Tensor& o) { clamp_kernel(o, x, lo, hi); });
    return;
  }
  dispatch(out.dtype(), "clamp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Tensor xc = cast(x, out.dtype());
    const T l = lo ? lo->to<T>() : T(0), h = hi ? hi->to<T>() : T(0);
    // With both bounds, a NaN one makes every element NaN, as PyTorch's kernel (NaN-propagating
    // minimum/maximum) does; v < NaN is false, so the loops below would ignore it. A lone NaN bound
    // is ignored, as PyTorch 1.13's clamp_min/clamp_max kernels ignore it.
    if (lo && hi && (l != l || h != h)) {
      const T nan = l != l ? l : h;
      unary_loop<T, T>(out, xc, [nan](T) { return nan; });
      return;
    }
    if (lo && hi) {
      unary_loop<T, T>(out, xc, [l, h](T v) {
        const T r = v < l ? l : v;
        return r > h ? h : r;
      });
    } else if (lo) {
      unary_loop<T, T>(out, xc, [l](T v) { return v < l ? l : v; });
    } else {
      unary_loop<T, T>(out, xc, [h](T v) { return v > h ? h : v; });
    }
  });
}

}  // namespace

// ---- free functions --------------------------------------------------------------------------------
Tensor neg(const Tensor& x) {
  refuse_bool(x, "neg", "to invert a mask use logical_not, e.g. `mask == false`.");
  return same_dtype_unary<"neg">(x, [](auto v) { return -v; });
}

Tensor abs(const Tensor& x) {
  refuse_bool(x, "abs", "convert first, e.g. .to(kd::kInt64).");
  return same_dtype_unary<"abs">(x, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) return std::abs(v);
    else if constexpr (std::is_unsigned_v<T>) return v;
    else return v < 0 ? static_cast<T>(-v) : v;
  });
}

Tensor exp(const Tensor& x) { return float_unary<"exp">(x, [](auto v) { return std::exp(v); }); }
Tensor reciprocal(const Tensor& x) {
  return float_unary<"reciprocal">(x, [](auto v) { return decltype(v)(1) / v; });
}
Tensor log(const Tensor& x) { return float_unary<"log">(x, [](auto v) { return std::log(v); }); }
Tensor sqrt(const Tensor& x) { return float_unary<"sqrt">(x, [](auto v) { return std::sqrt(v); }); }
Tensor tanh(const Tensor& x) { return float_unary<"tanh">(x, [](auto v) { return std::tanh(v); }); }

Tensor sigmoid(const Tensor& x) {
  // 1 / (1 + e^-x) overflows e^-x for very negative x; with e = e^-|x| (always in (0, 1]) both
  // branches stay finite: σ(x) = 1/(1+e) for x >= 0 and e/(1+e) for x < 0.
  return float_unary<"sigmoid">(x, [](auto v) {
    using T = decltype(v);
    const T e = std::exp(-std::abs(v));
    const T s = T(1) / (T(1) + e);
    return v >= T(0) ? s : e * s;
  });
}

namespace {
// relu in float16/bfloat16 (autocast's activations): a select with no arithmetic to round, so one
// loop over the 16-bit patterns gives what the float32 round trip gives, without its two casts.
// v < 0 exactly when the sign bit is set and the rest is neither zero (-0 stays -0) nor past inf;
// a NaN comes out as the round trip writes it: 0x7FC0 (bfloat16), 0x7E00 with its sign (float16).
Tensor relu_16bit(const Tensor& x) {
  const bool half = x.dtype() == kFloat16;
  const std::uint16_t inf = half ? 0x7C00 : 0x7F80, quiet = half ? 0x7E00 : 0x7FC0, keep_sign = half ? 0x8000 : 0;
  Tensor out = make_tensor(x.shape(), x.dtype());
  const auto* xp = static_cast<const std::uint16_t*>(x.raw_data_ptr());
  auto* op = static_cast<std::uint16_t*>(out.raw_data_ptr());
  const std::int64_t n = x.numel();
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint16_t v = xp[i], magnitude = v & 0x7FFF;
    const std::uint16_t nan = static_cast<std::uint16_t>((v & keep_sign) | quiet);
    op[i] = magnitude > inf ? nan : (v & 0x8000) && magnitude != 0 ? std::uint16_t{0} : v;
  }
  return out;
}
}  // namespace

Tensor relu(const Tensor& x) {
  refuse_bool(x, "relu", "convert first, e.g. .to(kd::kFloat32).");
  // On a device: its relu kernel (device_ops.hpp), for float32/16/bf16; else check_cpu's DeviceError below.
  if (const DeviceOps* dev = device_ops(x); dev && dev->relu && device_float(x.dtype()))
    return record<"relu">(dev->relu(x), x);
  if (is_reduced_floating_point(x.dtype()) && x.device().is_cpu() && x.is_contiguous())
    return record<"relu">(relu_16bit(x), x);
  // `v < 0 ? 0 : v` (not `v > 0 ? v : 0`) lets NaN through, like PyTorch.
  return same_dtype_unary<"relu">(x, [](auto v) {
    using T = decltype(v);
    return v < T(0) ? T(0) : v;
  });
}

Tensor sin(const Tensor& x) { return float_unary<"sin">(x, [](auto v) { return std::sin(v); }); }
Tensor cos(const Tensor& x) { return float_unary<"cos">(x, [](auto v) { return std::cos(v); }); }
// log1p / expm1 keep full precision near 0, where log(1 + x) and exp(x) - 1 lose every digit.
Tensor log1p(const Tensor& x) { return float_unary<"log1p">(x, [](auto v) { return std::log1p(v); }); }
Tensor expm1(const Tensor& x) { return float_unary<"expm1">(x, [](auto v) { return std::expm1(v); }); }
Tensor erf(const Tensor& x) { return float_unary<"erf">(x, [](auto v) { return std::erf(v); }); }

namespace {
/// floor / ceil / round / trunc: integers are already whole (an integer tensor comes back as a copy
/// in its own dtype, as in PyTorch); bool is refused like PyTorch does.
template <OpKey Key, class F> Tensor rounding(const Tensor& x, F f) {
  refuse_bool(x, Key.str, "convert first, e.g. .to(kd::kFloat32).");
  return same_dtype_unary<Key>(x, [f](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) return f(v);
    else return v;
  });
}
}  // namespace

Tensor floor(const Tensor& x) { return rounding<"floor">(x, [](auto v) { return std::floor(v); }); }
Tensor ceil(const Tensor& x) { return rounding<"ceil">(x, [](auto v) { return std::ceil(v); }); }
// torch.round rounds half to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2): nearbyint in the default rounding mode.
Tensor round(const Tensor& x) { return rounding<"round">(x, [](auto v) { return std::nearbyint(v); }); }
Tensor trunc(const Tensor& x) { return rounding<"trunc">(x, [](auto v) { return std::trunc(v); }); }

Tensor sign(const Tensor& x) {
  // (0 < v) - (v < 0): -1, 0 or 1 in x's dtype; NaN gives 0, as torch.sign does in 1.13.
  return same_dtype_unary<"sign">(x, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) return v;
    else if constexpr (std::is_unsigned_v<T>) return static_cast<T>(v > 0);
    else return static_cast<T>((T(0) < v) - (v < T(0)));
  });
}

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  check_cpu(x, "clamp");
  Tensor out = make_tensor(x.shape(), clamp_dtype(x, min, max, "clamp"));
  clamp_kernel(out, x, min, max);
  return record<"clamp">(out, x, min, max);
}

// ---- methods -----------------------------------------------------------------------------------------
Tensor Tensor::neg() const { return kindling::neg(*this); }
Tensor Tensor::abs() const { return kindling::abs(*this); }
Tensor Tensor::exp() const { return kindling::exp(*this); }
Tensor Tensor::reciprocal() const { return kindling::reciprocal(*this); }
Tensor Tensor::log() const { return kindling::log(*this); }
Tensor Tensor::sqrt() const { return kindling::sqrt(*this); }
Tensor Tensor::tanh() const { return kindling::tanh(*this); }
Tensor Tensor::sigmoid() const { return kindling::sigmoid(*this); }
Tensor Tensor::relu() const { return kindling::relu(*this); }
Tensor Tensor::sin() const { return kindling::sin(*this); }
Tensor Tensor::cos() const { return kindling::cos(*this); }
Tensor Tensor::log1p() const { return kindling::log1p(*this); }
Tensor Tensor::expm1() const { return kindling::expm1(*this); }
Tensor Tensor::erf() const { return kindling::erf(*this); }
Tensor Tensor::floor() const { return kindling::floor(*this); }
Tensor Tensor::ceil() const { return kindling::ceil(*this); }
Tensor Tensor::round() const { return kindling::round(*this); }
Tensor Tensor::trunc() const { return kindling::trunc(*this); }
Tensor Tensor::sign() const { return kindling::sign(*this); }
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return kindling::clamp(*this, min, max);
}

Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  check_cpu(*this, "clamp_");
  check_inplace(*this, "clamp_");
  check_no_internal_overlap(*this, "clamp_");
  const DType dt = clamp_dtype(*this, min, max, "clamp_");
  if (!can_cast(dt, dtype())) {
    throw DTypeError(std::string("clamp_: result type ") + torch_type_name(dt) +
                     " can't be cast to the desired output type " + torch_type_name(dtype()) +
                     " (a floating bound on a " + dname(dtype()) + " tensor). Hint: use integer bounds, or "
                     "the out-of-place clamp().");
  }
  if (dt == dtype()) {
    clamp_kernel(*this, *this, min, max);
  } else {
    Tensor tmp = make_tensor(shape(), dt);
    clamp_kernel(tmp, *this, min, max);
    copy_into(*this, tmp);
  }
  storage()->bump_version();
  return *this;
}

Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace kindling
