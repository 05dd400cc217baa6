// Elementwise binary math: add, sub, mul, div, pow, maximum, minimum, floor_divide, remainder, xlogy — out of place, in place, and as
// operators with a Scalar on either side.
//
// Every binary op follows the same three steps, exactly like PyTorch's TensorIterator:
//   1. type promotion: the dtype the op computes in (`int64 + float32 → float32`, `int / int → float32`);
//   2. broadcasting: the output shape (`[32, 1] + [10] → [32, 10]`);
//   3. the strided loop of loops.hpp, which walks every operand with its own strides (stride 0 along
//      broadcast dimensions), so transposed, sliced and expanded inputs need no copy.
#include <cmath>
#include <type_traits>

#include "device_ops.hpp"
#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "loops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

enum class Bin { Add, Sub, Mul, Div, Pow, Maximum, Minimum, FloorDivide, Remainder, Xlogy };

const char* op_name(Bin op) {
  switch (op) {
    case Bin::Add: return "add";
    case Bin::Sub: return "sub";
    case Bin::Mul: return "mul";
    case Bin::Div: return "div";
    case Bin::Pow: return "pow";
    case Bin::Maximum: return "maximum";
    case Bin::Minimum: return "minimum";
    case Bin::FloorDivide: return "floor_divide";
    case Bin::Remainder: return "remainder";
    case Bin::Xlogy: return "xlogy";
  }
  return "?";
}

/// Integer power by repeated squaring; negative exponents give what PyTorch gives (1, ±1 or 0).
template <class T> T int_pow(T base, std::int64_t e) {
  if (e < 0) {
    if (base == T(1)) return T(1);
    if constexpr (std::is_signed_v<T>) {
      if (base == T(-1)) return (e % 2 == 0) ? T(1) : T(-1);
    }
    return T(0);
  }
  T result = 1;
  while (e) {
    if (e & 1) result = static_cast<T>(result * base);
    base = static_cast<T>(base * base);
    e >>= 1;
  }
  return result;
}

/// Python's a // b for floats, as PyTorch computes it (c10's div_floor_floating): from fmod, so the
/// quotient is exact where a / b rounds (7.5 // 2.5 is 3, not 2.9999).
template <class T> T floor_div_floating(T a, T b) {
  if (b == T(0)) return a / b;  // inf or NaN, as IEEE division gives
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && (b < T(0)) != (mod < T(0))) div -= T(1);
  if (div == T(0)) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}

/// Integer a // b and a % b round towards minus infinity, like Python (C++ truncates towards 0).
[[noreturn]] void zero_division(const char* name) {
  throw ValueError(std::string(name) + ": ZeroDivisionError: integer division by zero (as in PyTorch). Hint: "
                   "mask the zeros first, e.g. where(b == 0, 1, b), or divide in floating point.");
}

/// True division (and xlogy) turn integer and bool inputs into float32, like torch.div / Python's `/`.
DType compute_dtype(Bin op, DType promoted) {
  if ((op == Bin::Div || op == Bin::Xlogy) && !is_floating_point(promoted)) return kFloat32;
  return promoted;
}

/// PyTorch refuses `-` whenever a bool takes part (a tensor or a Python bool), not only for two bools:
/// `mask - 1` is almost always a mask being inverted the wrong way.
void refuse_bool_sub(const char* name, DType a, DType b) {
  if (a == kBool || b == kBool) {
    throw DTypeError(std::string(name) + ": subtraction with a bool operand is not supported (as in PyTorch; got " +
                     dname(a) + " and " + dname(b) + "). Hint: to invert a mask use logical_not (`~` in "
                     "PyTorch); to subtract its values, convert it first with .to(kd::kInt64).");
  }
}

void check_args(Bin op, const char* name, DType compute, const Scalar& alpha, DType a, DType b) {
  if (op == Bin::Sub) refuse_bool_sub(name, a, b);
  if ((op == Bin::FloorDivide || op == Bin::Remainder) && compute == kBool) {
    throw DTypeError(std::string(name) + " is not implemented for bool tensors (as in PyTorch). Hint: convert "
                     "first, e.g. x.to(kd::kInt64).");
  }
  if (op == Bin::Pow && compute == kBool) {
    throw DTypeError(std::string(name) + ": pow of two bool tensors is not supported (as in PyTorch). Hint: "
                     "convert one first, e.g. x.to(kd::kInt64).pow(y).");
  }
  if (op == Bin::Add || op == Bin::Sub) {
    if (!is_floating_point(compute) && alpha.is_floating_point()) {
      throw DTypeError(std::string(name) + ": for integral inputs (" + dname(compute) + ") alpha must not be a "
                       "floating-point number (got " + std::to_string(alpha.to_double()) + "). Hint: convert "
                       "the tensors to float first, e.g. .to(kd::kFloat32).");
    }
    if (compute != kBool && alpha.is_bool()) {
      throw DTypeError(std::string(name) + ": a bool alpha is only supported for bool results (the result is " +
                       dname(compute) + "). Hint: pass alpha as a number, e.g. 1.");
    }
    check_scalar_fits(alpha, compute, name);  // alpha is stored in the result's dtype: uint8 alpha=300 raises
  }
}

/// out = op(a, b); a and b already have out's dtype T and broadcast to out's shape.
template <class T>
void run_kernel(Bin op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  // static_cast<T> keeps integer promotion (uint8 + uint8 is computed in int) from leaking out and
  // makes bool arithmetic logical (True + True == True), as in PyTorch.
  switch (op) {
    case Bin::Add:
    case Bin::Sub: {
      const bool sub = op == Bin::Sub;
      if (alpha.to_double() == 1.0 && !alpha.is_bool()) {
        if (sub) binary_loop<T, T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x - y); });
        else binary_loop<T, T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x + y); });
      } else {
        const T al = alpha.to<T>();
        if (sub) binary_loop<T, T, T>(out, a, b, [al](T x, T y) { return static_cast<T>(x - al * y); });
        else binary_loop<T, T, T>(out, a, b, [al](T x, T y) { return static_cast<T>(x + al * y); });
      }
      return;
    }
    case Bin::Mul:
      binary_loop<T, T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x * y); });
      return;
    case Bin::Div:
      if constexpr (std::is_floating_point_v<T>) {
        binary_loop<T, T, T>(out, a, b, [](T x, T y) { return x / y; });
        return;
      }
      break;  // compute_dtype() never asks for integer division
    case Bin::Pow:
      if constexpr (std::is_floating_point_v<T>) {
        binary_loop<T, T, T>(out, a, b, [](T x, T y) { return std::pow(x, y); });
      } else if constexpr (std::is_same_v<T, bool>) {
        break;  // check_args() refuses bool ** bool, as PyTorch does
      } else {
        binary_loop<T, T, T>(out, a, b, [](T x, T y) { return int_pow<T>(x, static_cast<std::int64_t>(y)); });
      }
      return;
    // NaN wins in maximum/minimum (x != x is true only for NaN), like torch.maximum.
    case Bin::Maximum:
      binary_loop<T, T, T>(out, a, b, [](T x, T y) { return (x > y || x != x) ? x : y; });
      return;
    case Bin::Minimum:
      binary_loop<T, T, T>(out, a, b, [](T x, T y) { return (x < y || x != x) ? x : y; });
      return;
    // a // b and a % b take the sign of b, as Python's do: -7 // 2 == -4, -7 % 2 == 1, 7 % -2 == -1.
    case Bin::FloorDivide:
      if constexpr (std::is_floating_point_v<T>) {
        binary_loop<T, T, T>(out, a, b, [](T x, T y) { return floor_div_floating(x, y); });
        return;
      } else if constexpr (!std::is_same_v<T, bool>) {
        binary_loop<T, T, T>(out, a, b, [](T x, T y) {
          if (y == T(0)) zero_division("floor_divide");
          if constexpr (std::is_signed_v<T>) {
            if (y == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(x));  // wraps at min
          }
          T q = static_cast<T>(x / y);
          if constexpr (std::is_signed_v<T>) {
            if (x % y != 0 && ((x < 0) != (y < 0))) --q;
          }
          return q;
        });
        return;
      }
      break;
    case Bin::Remainder:
      if constexpr (std::is_floating_point_v<T>) {
        binary_loop<T, T, T>(out, a, b, [](T x, T y) {
          T m = std::fmod(x, y);
          if (m != T(0) && ((y < T(0)) != (m < T(0)))) m += y;
          return m;
        });
        return;
      } else if constexpr (!std::is_same_v<T, bool>) {
        binary_loop<T, T, T>(out, a, b, [](T x, T y) {
          if (y == T(0)) zero_division("remainder");
          if constexpr (std::is_signed_v<T>) {
            if (y == T(-1)) return T(0);  // min % -1 would overflow in C++; the answer is 0
          }
          T m = static_cast<T>(x % y);
          if constexpr (std::is_signed_v<T>) {
            if (m != 0 && ((m < 0) != (y < 0))) m = static_cast<T>(m + y);
          }
          return m;
        });
        return;
      }
      break;
    // x · log(y), but 0 where x == 0 even when log(y) is -inf (the entropy term 0 · log 0 = 0); a NaN y
    // stays NaN, as in PyTorch's kernel.
    case Bin::Xlogy:
      if constexpr (std::is_floating_point_v<T>) {
        binary_loop<T, T, T>(out, a, b, [](T x, T y) {
          if (y != y) return y;
          return x == T(0) ? T(0) : static_cast<T>(x * std::log(y));
        });
        return;
      }
      break;  // compute_dtype() always asks for a floating dtype
  }
  throw DTypeError(std::string(op_name(op)) + ": unsupported dtype " + dname(dtype_of<T>()));
}

/// out = a ± alpha·b in float32 with a float16/bfloat16 b (a 16-bit gradient added into a float32
/// .grad): b is widened as it is read. Widening is exact, so this is the value of casting b first,
/// without writing and reading back a float32 copy of it.
template <class H>
void add_widening(bool sub, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const float al = sub ? -alpha.to<float>() : alpha.to<float>();  // negation is exact
  if (al == 1.0f) binary_loop<float, H, float>(out, a, b, [](float x, H y) { return x + static_cast<float>(y); });
  else binary_loop<float, H, float>(out, a, b, [al](float x, H y) { return x + al * static_cast<float>(y); });
}

void run(Bin op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  const DType dt = out.dtype();
  if (dt == kFloat32 && a.dtype() == kFloat32 && (op == Bin::Add || op == Bin::Sub)) {
    if (b.dtype() == kBFloat16) return add_widening<BFloat16>(op == Bin::Sub, out, a, b, alpha);
    if (b.dtype() == kFloat16) return add_widening<Half>(op == Bin::Sub, out, a, b, alpha);
  }
  if (!is_reduced_floating_point(dt)) {
    dispatch(dt, op_name(op), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (a.dtype() == dt && b.dtype() == dt) run_kernel<T>(op, out, a, b, alpha);  // no casts, no copies
      else run_kernel<T>(op, out, cast(a, dt), cast(b, dt), alpha);
    });
    return;
  }
  // float16/bfloat16: both operands are first converted to the result's dtype, as PyTorch's
  // TensorIterator does (a float32 0-d operand of a float16 op is rounded to float16 before the
  // float32 math), then computed in float32 and rounded once.
  const Tensor ac = cast(a, dt), bc = cast(b, dt);
  via_float32(out, [&](const Tensor& o) {
    dispatch(o.dtype(), op_name(op), [&](auto tag) {
      using T = typename decltype(tag)::type;
      run_kernel<T>(op, o, cast(ac, o.dtype()), cast(bc, o.dtype()), alpha);
    });
  });
}

/// The out-of-place op. The public functions below then record it for autograd (each key names a
/// Function in autograd/binary_ops_backward.cpp).
/// The device table's code for + - * / (device_ops.hpp: 0 add, 1 sub, 2 mul, 3 div).
int device_code(Bin op) { return op == Bin::Add ? 0 : op == Bin::Sub ? 1 : op == Bin::Mul ? 2 : 3; }

Tensor binary_forward(Bin op, const Tensor& a, const Tensor& b, const Scalar& alpha = 1) {
  const char* name = op_name(op);
  check_same_device(a, b, name);
  // On a device: + - * / of two float32 (or two 16-bit) tensors, alpha 1, have a kernel (device_ops.hpp).
  if (const DeviceOps* dev = device_ops(a); dev && dev->binary && device_float(a.dtype()) && b.dtype() == a.dtype() &&
      alpha.to_double() == 1.0 && (op == Bin::Add || op == Bin::Sub || op == Bin::Mul || op == Bin::Div)) {
    return dev->binary(device_code(op), a, b);
  }
  check_cpu(a, name);
  check_cpu(b, name);
  const DType compute = compute_dtype(op, result_type(a, b));
  check_args(op, name, compute, alpha, a.dtype(), b.dtype());
  Tensor out = make_tensor(broadcast_shapes(a.shape(), b.shape(), name), compute);
  run(op, out, a, b, alpha);
  return out;
}

bool same_geometry(const Tensor& a, const Tensor& b) {
  return a.raw_data_ptr() == b.raw_data_ptr() && a.shape() == b.shape() && a.strides() == b.strides();
}

/// self = op(self, other), written into self's own memory.
Tensor& binary_inplace(Bin op, Tensor& self, const Tensor& other, const Scalar& alpha, const char* name) {
  check_same_device(self, other, name);
  // On a device: + - * / into a contiguous self of other's dtype (a gradient accumulated with add_).
  if (const DeviceOps* dev = device_ops(self); dev && dev->binary_ && device_float(self.dtype()) &&
      other.dtype() == self.dtype() && self.is_contiguous() && alpha.to_double() == 1.0 && !self.shares_storage(other) &&
      (op == Bin::Add || op == Bin::Sub || op == Bin::Mul || op == Bin::Div) &&
      broadcast_shapes(self.shape(), other.shape(), name) == self.shape()) {
    check_inplace(self, name);
    if (needs_grad(other))
      throw AutogradError(std::string(name) + ": the other operand requires grad, but in-place ops are not "
                          "recorded by Kindling's autograd. Hint: use the out-of-place form, e.g. `y = y + x`.");
    dev->binary_(device_code(op), self, other);
    self.storage()->bump_version();
    return self;
  }
  check_cpu(self, name);
  check_cpu(other, name);
  check_inplace(self, name);
  if (needs_grad(other)) {
    throw AutogradError(std::string(name) + ": the other operand requires grad, but in-place ops are not "
                        "recorded by Kindling's autograd. Hint: use the out-of-place form, e.g. `y = y + x`.");
  }
  const DType compute = compute_dtype(op, result_type(self, other));
  if (!can_cast(compute, self.dtype())) {
    throw DTypeError(std::string(name) + ": result type " + torch_type_name(compute) +
                     " can't be cast to the desired output type " + torch_type_name(self.dtype()) + " (the " +
                     op_name(op) + " of " + dname(self.dtype()) + " and " + dname(other.dtype()) + " is " +
                     dname(compute) + "). Hint: use the out-of-place form, or convert self first with .to(" +
                     (is_floating_point(compute) ? "kd::kFloat32" : "kd::kInt64") + ").");
  }
  const Shape shape = broadcast_shapes(self.shape(), other.shape(), name);
  if (shape != self.shape()) {
    throw ShapeError(std::string(name) + ": output with shape " + shape_str(self.shape()) +
                     " doesn't match the broadcast shape " + shape_str(shape) + " (other has shape " +
                     shape_str(other.shape()) + "). Hint: an in-place op cannot change self's shape; use "
                     "the out-of-place form, e.g. `x = x + y`.");
  }
  check_no_internal_overlap(self, name);
  check_args(op, name, compute, alpha, self.dtype(), other.dtype());
  const bool aliased = self.shares_storage(other) && !same_geometry(self, other);
  if (compute == self.dtype() && !aliased) {
    run(op, self, self, other, alpha);  // elementwise: each output reads only its own input element
  } else {
    // Other dtype, or `other` overlaps self in another layout (x.add_(x.t())): compute aside, copy in.
    Tensor tmp = make_tensor(self.shape(), compute);
    run(op, tmp, self, other, alpha);
    copy_into(self, tmp);
  }
  self.storage()->bump_version();
  return self;
}

/// A Python number as a 0-d tensor (PyTorch's "wrapped number") in the dtype `t op s` computes in. It
/// takes part in type promotion first, so `uint8 / -1` divides by -1.0 in float32 (converting -1 to
/// uint8 first would divide by 255), while `uint8 + 300` adds 300 converted to uint8 (44), as in
/// PyTorch. A bool never takes part in a subtraction (refuse_bool_sub).
Tensor wrap(const Tensor& t, const Scalar& s, Bin op) {
  check_defined(t, op_name(op));
  if (op == Bin::Sub && s.is_bool()) refuse_bool_sub(op_name(op), t.dtype(), kBool);
  return scalar_to_tensor(s, compute_dtype(op, result_type(t, s)));
}

}  // namespace

// ---- free functions --------------------------------------------------------------------------------
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  return record<"add">(binary_forward(Bin::Add, a, b, alpha), a, b, alpha);
}
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  return record<"sub">(binary_forward(Bin::Sub, a, b, alpha), a, b, alpha);
}
Tensor mul(const Tensor& a, const Tensor& b) { return record<"mul">(binary_forward(Bin::Mul, a, b), a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return record<"div">(binary_forward(Bin::Div, a, b), a, b); }
Tensor pow(const Tensor& a, const Tensor& exponent) {
  return record<"pow">(binary_forward(Bin::Pow, a, exponent), a, exponent);
}
/// Python's a // b (PyTorch 1.13 rounds towards minus infinity). Not differentiable: its gradient is 0
/// almost everywhere, and PyTorch's backward raises -- so does ours (FloorDivideBackward).
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  return record<"floor_divide">(binary_forward(Bin::FloorDivide, a, b), a, b);
}
Tensor floor_divide(const Tensor& a, Scalar b) { return floor_divide(a, wrap(a, b, Bin::FloorDivide)); }
/// Python's a % b: the sign of b (torch.remainder; C++'s % and torch.fmod take the sign of a).
Tensor remainder(const Tensor& a, const Tensor& b) {
  return record<"remainder">(binary_forward(Bin::Remainder, a, b), a, b);
}
Tensor remainder(const Tensor& a, Scalar b) { return remainder(a, wrap(a, b, Bin::Remainder)); }
Tensor remainder(Scalar a, const Tensor& b) { return remainder(wrap(b, a, Bin::Remainder), b); }
Tensor floor_divide(Scalar a, const Tensor& b) { return floor_divide(wrap(b, a, Bin::FloorDivide), b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, Scalar b) { return remainder(a, b); }
Tensor operator%(Scalar a, const Tensor& b) { return remainder(a, b); }

/// x · log(y) with 0 wherever x == 0 (torch.xlogy / torch.special.xlogy): the term of an entropy or a
/// KL divergence, where 0 · log 0 counts as 0.
Tensor xlogy(const Tensor& x, const Tensor& y) { return record<"xlogy">(binary_forward(Bin::Xlogy, x, y), x, y); }
Tensor xlogy(const Tensor& x, Scalar y) { return xlogy(x, wrap(x, y, Bin::Xlogy)); }
Tensor xlogy(Scalar x, const Tensor& y) { return xlogy(wrap(y, x, Bin::Xlogy), y); }

Tensor maximum(const Tensor& a, const Tensor& b) {
  return record<"maximum">(binary_forward(Bin::Maximum, a, b), a, b);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return record<"minimum">(binary_forward(Bin::Minimum, a, b), a, b);
}

namespace {
/// out = x ** exponent, out and x of the same compute dtype.
void pow_scalar_kernel(const Tensor& out, const Tensor& x, const Scalar& exponent) {
  dispatch(out.dtype(), "pow", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      // The exponents PyTorch special-cases get the same cheap (and exact-as-possible) formulas.
      const T e = exponent.to<T>();
      if (e == T(2)) unary_loop<T, T>(out, x, [](T v) { return v * v; });
      else if (e == T(3)) unary_loop<T, T>(out, x, [](T v) { return v * v * v; });
      else if (e == T(0.5)) unary_loop<T, T>(out, x, [](T v) { return std::sqrt(v); });
      else if (e == T(-0.5)) unary_loop<T, T>(out, x, [](T v) { return T(1) / std::sqrt(v); });
      else if (e == T(-1)) unary_loop<T, T>(out, x, [](T v) { return T(1) / v; });
      else if (e == T(-2)) unary_loop<T, T>(out, x, [](T v) { return T(1) / (v * v); });
      else unary_loop<T, T>(out, x, [e](T v) { return std::pow(v, e); });
    } else if constexpr (!std::is_same_v<T, bool>) {  // bool was refused above
      const std::int64_t e = exponent.to_int();
      unary_loop<T, T>(out, x, [e](T v) { return int_pow<T>(v, e); });
    }
  });
}
}  // namespace

Tensor pow(const Tensor& a, Scalar exponent) {
  check_cpu(a, "pow");
  const DType dt = result_type(a, exponent);
  if (dt == kBool) {
    throw DTypeError("pow: a bool tensor to a bool power is not supported (as in PyTorch; shape " +
                     shape_str(a.shape()) + "). Hint: convert first, e.g. x.to(kd::kInt64).pow(1).");
  }
  // An integer result computes with the exponent in its own dtype: uint8 ** 256 raises, as in PyTorch
  // (a floating result keeps the exponent in double, so float ** 1e40 is inf, not an error).
  if (!is_floating_point(dt)) check_scalar_fits(exponent, dt, "pow");
  if (!is_floating_point(dt) && !exponent.is_floating_point() && exponent.to_int() < 0) {
    throw ValueError("pow: integers to negative integer powers are not allowed (" + dname(a.dtype()) +
                     " tensor of shape " + shape_str(a.shape()) + " to the power " +
                     std::to_string(exponent.to_int()) + "). Hint: convert first, e.g. "
                     "x.to(kd::kFloat32).pow(-1).");
  }
  Tensor out = make_tensor(a.shape(), dt);
  via_float32(out, [&](const Tensor& o) { pow_scalar_kernel(o, cast(a, o.dtype()), exponent); });
  return record<"pow_scalar">(out, a, exponent);
}

// ---- methods -----------------------------------------------------------------------------------------
Tensor Tensor::add(const Tensor& other, Scalar alpha) const { return kindling::add(*this, other, alpha); }
Tensor Tensor::sub(const Tensor& other, Scalar alpha) const { return kindling::sub(*this, other, alpha); }
Tensor Tensor::mul(const Tensor& other) const { return kindling::mul(*this, other); }
Tensor Tensor::div(const Tensor& other) const { return kindling::div(*this, other); }
Tensor Tensor::pow(const Tensor& exponent) const { return kindling::pow(*this, exponent); }
Tensor Tensor::pow(Scalar exponent) const { return kindling::pow(*this, exponent); }
Tensor Tensor::maximum(const Tensor& other) const { return kindling::maximum(*this, other); }
Tensor Tensor::minimum(const Tensor& other) const { return kindling::minimum(*this, other); }

Tensor& Tensor::add_(const Tensor& other, Scalar alpha) { return binary_inplace(Bin::Add, *this, other, alpha, "add_"); }
Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) { return binary_inplace(Bin::Sub, *this, other, alpha, "sub_"); }
Tensor& Tensor::mul_(const Tensor& other) { return binary_inplace(Bin::Mul, *this, other, 1, "mul_"); }
Tensor& Tensor::div_(const Tensor& other) { return binary_inplace(Bin::Div, *this, other, 1, "div_"); }
Tensor& Tensor::add_(Scalar other) { return binary_inplace(Bin::Add, *this, wrap(*this, other, Bin::Add), 1, "add_"); }
Tensor& Tensor::sub_(Scalar other) { return binary_inplace(Bin::Sub, *this, wrap(*this, other, Bin::Sub), 1, "sub_"); }
Tensor& Tensor::mul_(Scalar other) { return binary_inplace(Bin::Mul, *this, wrap(*this, other, Bin::Mul), 1, "mul_"); }
Tensor& Tensor::div_(Scalar other) { return binary_inplace(Bin::Div, *this, wrap(*this, other, Bin::Div), 1, "div_"); }

// ---- operators -------------------------------------------------------------------------------------
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, wrap(a, b, Bin::Add)); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, wrap(a, b, Bin::Sub)); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, wrap(a, b, Bin::Mul)); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, wrap(a, b, Bin::Div)); }
// A number on the left, as PyTorch's Python operators do it: 2 + x and 2 * x are x + 2 and x * 2 (the
// tensor stays the first input of the node), 2 - x is rsub (RsubBackward1), 2 / x is reciprocal(x) * 2.
Tensor operator+(Scalar a, const Tensor& b) { return add(b, wrap(b, a, Bin::Add)); }
Tensor operator-(Scalar a, const Tensor& b) { return rsub(b, a); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, wrap(b, a, Bin::Mul)); }
Tensor operator/(Scalar a, const Tensor& b) { return reciprocal(b) * a; }

Tensor rsub(const Tensor& x, Scalar other, Scalar alpha) {
  return record<"rsub">(binary_forward(Bin::Sub, wrap(x, other, Bin::Sub), x, alpha), x, other, alpha);
}
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, Scalar b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, Scalar b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, Scalar b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, Scalar b) { return a.div_(b); }

}  // namespace kindling
