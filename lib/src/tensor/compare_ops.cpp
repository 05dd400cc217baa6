// Comparisons (eq, ne, lt, le, gt, ge → bool tensors), where(), allclose() and equal().
//
// A comparison first promotes both sides to a common dtype exactly like arithmetic does
// (`int_tensor < 2.5` compares in float32), then writes a bool per element. Comparisons have no
// gradient, so they record nothing; where() does (WhereBackward0 routes the gradient by the mask).
#include <cmath>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "loops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

const char* cmp_name(Cmp op) {
  switch (op) {
    case Cmp::Eq: return "eq";
    case Cmp::Ne: return "ne";
    case Cmp::Lt: return "lt";
    case Cmp::Le: return "le";
    case Cmp::Gt: return "gt";
    case Cmp::Ge: return "ge";
  }
  return "?";
}

Tensor compare(Cmp op, const Tensor& a, const Tensor& b) {
  const char* name = cmp_name(op);
  check_same_device(a, b, name);
  check_cpu(a, name);
  check_cpu(b, name);
  // float16/bfloat16: both sides rounded to the common dtype, then compared in float32 (widening
  // is exact, so the answers are the same).
  const DType common = result_type(a, b), dt = compute_dtype_of(common);
  Tensor out = make_tensor(broadcast_shapes(a.shape(), b.shape(), name), kBool);
  const Tensor ac = cast(cast(a, common), dt), bc = cast(cast(b, common), dt);
  dispatch(dt, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (op) {
      case Cmp::Eq: binary_loop<T, T, bool>(out, ac, bc, [](T x, T y) { return x == y; }); break;
      case Cmp::Ne: binary_loop<T, T, bool>(out, ac, bc, [](T x, T y) { return x != y; }); break;
      case Cmp::Lt: binary_loop<T, T, bool>(out, ac, bc, [](T x, T y) { return x < y; }); break;
      case Cmp::Le: binary_loop<T, T, bool>(out, ac, bc, [](T x, T y) { return x <= y; }); break;
      case Cmp::Gt: binary_loop<T, T, bool>(out, ac, bc, [](T x, T y) { return x > y; }); break;
      case Cmp::Ge: binary_loop<T, T, bool>(out, ac, bc, [](T x, T y) { return x >= y; }); break;
    }
  });
  return out;
}

Tensor compare(Cmp op, const Tensor& a, const Scalar& b) {
  check_defined(a, cmp_name(op));
  return compare(op, a, scalar_to_tensor(b, result_type(a, b)));
}

/// True when every element of a bool tensor is true.
bool all_true(const Tensor& t) {
  const Tensor c = contiguous_copy(t);
  const bool* p = c.data_ptr<bool>();
  for (std::int64_t i = 0; i < c.numel(); ++i)
    if (!p[i]) return false;
  return true;
}

/// out = cond ? a : b, every operand broadcast to out's shape (a and b already have out's dtype).
void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  dispatch_all(out.dtype(), "where", [&](auto tag) {  // moves elements, no math: any dtype
    using T = typename decltype(tag)::type;
    const Shape& shape = out.shape();
    std::array<DimVec, 4> st{
        broadcast_byte_strides(out, shape), broadcast_byte_strides(cond, shape),
        broadcast_byte_strides(a, shape), broadcast_byte_strides(b, shape)};
    for_each_row<4>(shape,
                    {static_cast<char*>(out.raw_data_ptr()), static_cast<char*>(cond.raw_data_ptr()),
                     static_cast<char*>(a.raw_data_ptr()), static_cast<char*>(b.raw_data_ptr())},
                    st, [](std::array<char*, 4> p, const std::array<std::int64_t, 4>& s, std::int64_t n) {
                      // cond is bool or uint8: one byte either way, nonzero means "take a".
                      if (s[0] == sizeof(T) && s[1] == 1 && s[2] == sizeof(T) && s[3] == sizeof(T)) {
                        T* o = reinterpret_cast<T*>(p[0]);
                        const std::uint8_t* c = reinterpret_cast<const std::uint8_t*>(p[1]);
                        const T* x = reinterpret_cast<const T*>(p[2]);
                        const T* y = reinterpret_cast<const T*>(p[3]);
                        for (std::int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i] : y[i];
                        return;
                      }
                      for (std::int64_t i = 0; i < n; ++i) {
                        const bool c = *reinterpret_cast<const std::uint8_t*>(p[1] + i * s[1]) != 0;
                        *reinterpret_cast<T*>(p[0] + i * s[0]) =
                            c ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                              : *reinterpret_cast<const T*>(p[3] + i * s[3]);
                      }
                    });
  });
}

Tensor where_impl(const Tensor& cond, const Tensor& a, const Tensor& b, DType dt) {
  check_cpu(cond, "where");
  check_cpu(a, "where");
  check_cpu(b, "where");
  if (cond.dtype() != kBool && cond.dtype() != kUInt8) {
    throw DTypeError("where: expected condition to be a bool tensor, but got " + dname(cond.dtype()) +
                     " (shape " + shape_str(cond.shape()) + "). Hint: build it with a comparison, e.g. "
                     "kd::where(x > 0, x, y).");
  }
  const Shape shape =
      broadcast_shapes(cond.shape(), broadcast_shapes(a.shape(), b.shape(), "where"), "where");
  Tensor out = make_tensor(shape, dt);
  where_kernel(out, cond, cast(a, dt), cast(b, dt));
  return record<"where">(out, cond, a, b);
}

}  // namespace

// ---- comparisons -----------------------------------------------------------------------------------
Tensor Tensor::eq(const Tensor& other) const { return compare(Cmp::Eq, *this, other); }
Tensor Tensor::ne(const Tensor& other) const { return compare(Cmp::Ne, *this, other); }
Tensor Tensor::lt(const Tensor& other) const { return compare(Cmp::Lt, *this, other); }
Tensor Tensor::le(const Tensor& other) const { return compare(Cmp::Le, *this, other); }
Tensor Tensor::gt(const Tensor& other) const { return compare(Cmp::Gt, *this, other); }
Tensor Tensor::ge(const Tensor& other) const { return compare(Cmp::Ge, *this, other); }

Tensor operator==(const Tensor& a, const Tensor& b) { return compare(Cmp::Eq, a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return compare(Cmp::Ne, a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return compare(Cmp::Lt, a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return compare(Cmp::Le, a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return compare(Cmp::Gt, a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return compare(Cmp::Ge, a, b); }
Tensor operator==(const Tensor& a, Scalar b) { return compare(Cmp::Eq, a, b); }
Tensor operator!=(const Tensor& a, Scalar b) { return compare(Cmp::Ne, a, b); }
Tensor operator<(const Tensor& a, Scalar b) { return compare(Cmp::Lt, a, b); }
Tensor operator<=(const Tensor& a, Scalar b) { return compare(Cmp::Le, a, b); }
Tensor operator>(const Tensor& a, Scalar b) { return compare(Cmp::Gt, a, b); }
Tensor operator>=(const Tensor& a, Scalar b) { return compare(Cmp::Ge, a, b); }
// 2 < x is x > 2: the comparison turned around, so the tensor stays the first operand.
Tensor operator==(Scalar a, const Tensor& b) { return compare(Cmp::Eq, b, a); }
Tensor operator!=(Scalar a, const Tensor& b) { return compare(Cmp::Ne, b, a); }
Tensor operator<(Scalar a, const Tensor& b) { return compare(Cmp::Gt, b, a); }
Tensor operator<=(Scalar a, const Tensor& b) { return compare(Cmp::Ge, b, a); }
Tensor operator>(Scalar a, const Tensor& b) { return compare(Cmp::Lt, b, a); }
Tensor operator>=(Scalar a, const Tensor& b) { return compare(Cmp::Le, b, a); }

// ---- where -----------------------------------------------------------------------------------------
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  check_defined(a, "where");
  check_defined(b, "where");
  return where_impl(condition, a, b, result_type(a, b));
}

Tensor where(const Tensor& condition, const Tensor& a, Scalar b) {
  check_defined(a, "where");
  const DType dt = result_type(a, b);
  return where_impl(condition, a, checked_scalar_to_tensor(b, dt, "where"), dt);
}

Tensor where(const Tensor& condition, Scalar a, const Tensor& b) {
  check_defined(b, "where");
  const DType dt = result_type(b, a);
  return where_impl(condition, checked_scalar_to_tensor(a, dt, "where"), b, dt);
}

// ---- whole-tensor checks ---------------------------------------------------------------------------
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  check_cpu(a, "allclose");
  check_cpu(b, "allclose");
  if (a.dtype() != b.dtype()) {
    throw DTypeError("allclose: both tensors must have the same dtype, got " + dname(a.dtype()) + " and " +
                     dname(b.dtype()) + ". Hint: convert one, e.g. a.to(b.dtype()).");
  }
  // Like torch.allclose, the shapes broadcast against each other.
  Tensor close = make_tensor(broadcast_shapes(a.shape(), b.shape(), "allclose"), kBool);
  dispatch_all(a.dtype(), "allclose", [&](auto tag) {
    using T = typename decltype(tag)::type;
    binary_loop<T, T, bool>(close, a, b, [=](T x, T y) {
      const double dx = static_cast<double>(x), dy = static_cast<double>(y);
      if (dx == dy) return true;  // also equal infinities
      if (std::isnan(dx) || std::isnan(dy)) return equal_nan && std::isnan(dx) && std::isnan(dy);
      if (std::isinf(dx) || std::isinf(dy)) return false;
      return std::abs(dx - dy) <= atol + rtol * std::abs(dy);
    });
  });
  return all_true(close);
}

bool equal(const Tensor& a, const Tensor& b) {
  check_cpu(a, "equal");
  check_cpu(b, "equal");
  if (a.shape() != b.shape()) return false;
  return all_true(compare(Cmp::Eq, a, b));
}

}  // namespace kindling
