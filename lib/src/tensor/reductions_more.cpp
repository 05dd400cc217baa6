// More reductions: amax/amin over several dims, prod, logsumexp and norm.
//
//   x: [2, 3, 4]   x.amax({0, 2}) -> [3]      x.prod(1) -> [2, 4]      x.logsumexp({-1}) -> [2, 3]
//
// amax/amin and prod are loops of their own (reduce.hpp's reduce_loop, like sum) recorded as one op
// each (AmaxBackward0, ProdBackward0/1). logsumexp is made of recorded ops around a detached max, so
// its gradient (softmax) comes from the ops it is made of. norm computes its value the same way but
// records one op, NormBackward, whose formula is 0 (not 0/0 = NaN) where the norm is 0, as PyTorch's.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/autocast_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"
#include "reduce.hpp"

namespace kindling {
namespace {
using namespace detail;

/// Refuses a reduction over an empty dimension for ops with no identity (amax of nothing).
void refuse_empty_dims(const Tensor& x, const std::vector<bool>& mask, const char* op) {
  for (std::int64_t d = 0; d < x.dim(); ++d) {
    if (mask[static_cast<std::size_t>(d)] && x.size(d) == 0) {
      throw IndexError(std::string(op) + ": expected reduction dim " + std::to_string(d) + " to have non-zero "
                       "size (input shape " + shape_str(x.shape()) + "). Hint: " + op + " of no elements is "
                       "undefined; check the size first.");
    }
  }
}

/// The largest (is_max) or smallest value over the masked dims, in keepdim shape. NaN wins.
Tensor extreme_keepdim(const Tensor& x, const std::vector<bool>& mask, bool is_max, const char* op) {
  Tensor acc = make_tensor(reduced_shape(x.shape(), mask, true), x.dtype());
  dispatch(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using L = std::numeric_limits<T>;
    T init;
    if constexpr (std::is_floating_point_v<T>) init = is_max ? -L::infinity() : L::infinity();
    else init = is_max ? L::lowest() : L::max();
    T* a0 = acc.data_ptr<T>();
    for (std::int64_t i = 0; i < acc.numel(); ++i) a0[i] = init;
    auto pick = [is_max](T m, T v) { return ((is_max ? v > m : v < m) || v != v) ? v : m; };
    reduce_loop(acc, x, [&](char* a, char* xp, std::int64_t sa, std::int64_t sx, std::int64_t n) {
      if (sa == 0) {  // the whole row falls into one output
        T m = *reinterpret_cast<T*>(a);
        for (std::int64_t i = 0; i < n; ++i) m = pick(m, *reinterpret_cast<const T*>(xp + i * sx));
        *reinterpret_cast<T*>(a) = m;
      } else {
        for (std::int64_t i = 0; i < n; ++i) {
          T& m = *reinterpret_cast<T*>(a + i * sa);
          m = pick(m, *reinterpret_cast<const T*>(xp + i * sx));
        }
      }
    });
  });
  return acc;
}

Tensor amax_impl(const Tensor& x, IntArrayRef dims, bool keepdim, bool is_max) {
  const char* op = is_max ? "amax" : "amin";
  check_cpu(x, op);
  check_defined(x, op);
  const auto mask = reduce_mask(x, dims, op);
  refuse_empty_dims(x, mask, op);
  if (x.dim() == 0 && x.numel() == 0) refuse_empty_dims(x, mask, op);
  // float16/bfloat16: the best of the widened values is exact, so it narrows back without rounding.
  const Tensor xc = cast(x, compute_dtype_of(x.dtype()));
  const Tensor acc = extreme_keepdim(xc, mask, is_max, op);
  const Shape out_shape = reduced_shape(x.shape(), mask, keepdim);
  const Tensor out = cast(make_view(acc, out_shape, contiguous_strides(out_shape), 0), x.dtype());
  const Shape reduced = mask_dims(mask);
  return is_max ? record<"amax">(out, x, IntArrayRef(reduced), keepdim)
                : record<"amin">(out, x, IntArrayRef(reduced), keepdim);
}

/// a * b; for integers with two's-complement wrap-around on overflow, as PyTorch's int64 math does
/// (signed overflow is undefined behaviour in C++, so the multiplication is done unsigned).
template <class T> T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

/// The product over the masked dims, in keepdim shape, accumulated in float64 (floating inputs) or
/// int64 (bool and integer inputs, which give int64 as in PyTorch).
Tensor prod_keepdim(const Tensor& x, const std::vector<bool>& mask) {
  const DType acc_dtype = is_floating_point(x.dtype()) ? kFloat64 : kInt64;
  const Tensor xc = cast(x, acc_dtype);
  Tensor acc = ones(reduced_shape(x.shape(), mask, true), {.dtype = acc_dtype});
  dispatch(acc_dtype, "prod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {  // acc_dtype is float64 or int64
    reduce_loop(acc, xc, [&](char* a, char* xp, std::int64_t sa, std::int64_t sx, std::int64_t n) {
      if (sa == 0) {
        T p = *reinterpret_cast<T*>(a);
        for (std::int64_t i = 0; i < n; ++i) p = wrapping_mul(p, *reinterpret_cast<const T*>(xp + i * sx));
        *reinterpret_cast<T*>(a) = p;
      } else {
        for (std::int64_t i = 0; i < n; ++i) {
          T& acc_i = *reinterpret_cast<T*>(a + i * sa);
          acc_i = wrapping_mul(acc_i, *reinterpret_cast<const T*>(xp + i * sx));
        }
      }
    });
    }
  });
  return acc;
}

Tensor prod_impl(const Tensor& x_in, std::optional<std::int64_t> dim, bool keepdim) {
  check_defined(x_in, "prod");
  // prod is on autocast's float32 list (PyTorch 1.13's CPU list too): a product of many 16-bit
  // factors leaves 16-bit range long before their float32 product does.
  const Tensor x = autocast_to_float32(x_in);
  check_cpu(x, "prod");
  const auto mask = dim ? reduce_mask(x, {*dim}, "prod") : reduce_mask(x, {}, "prod");
  const DType out_dtype = is_floating_point(x.dtype()) ? x.dtype() : kInt64;
  const Shape out_shape = reduced_shape(x.shape(), mask, dim ? keepdim : false);
  const Tensor acc = prod_keepdim(x, mask);
  const Tensor out = cast(make_view(acc, out_shape, contiguous_strides(out_shape), 0), out_dtype);
  if (!dim) return record<"prod">(out, x);
  return record<"prod_dim">(out, x, x.dim() == 0 ? std::int64_t{0} : wrap_dim(*dim, x.dim(), "prod"), keepdim);
}

/// Drops the reduced dims of a keepdim-shaped result (a reshape, so autograd follows it).
Tensor drop_reduced(const Tensor& t, const Shape& input_shape, const std::vector<bool>& mask) {
  return t.reshape(reduced_shape(input_shape, mask, false));
}

void check_norm_dtype(const Tensor& x) {
  if (!x.is_floating_point()) {
    throw DTypeError("norm: input dtype should be floating point (got " + dname(x.dtype()) + ", shape " +
                     shape_str(x.shape()) + "), as in PyTorch. Hint: convert first, e.g. x.to(kd::kFloat32).norm().");
  }
}

Tensor norm_impl(const Tensor& x, double p, IntArrayRef dims, bool keepdim) {
  check_cpu(x, "norm");
  check_defined(x, "norm");
  check_norm_dtype(x);
  const auto mask = reduce_mask(x, dims, "norm");
  const Shape reduced = mask_dims(mask);
  Tensor out;
  {
    GradModeOff off;  // the value; NormBackward (autograd/reductions_backward.cpp) is its derivative
    const Tensor a = x.abs();
    const IntArrayRef rd(reduced);
    if (std::isinf(p)) {
      if (x.numel() == 0 && p > 0) out = zeros(reduced_shape(x.shape(), mask, keepdim), {.dtype = x.dtype()});
      else out = p > 0 ? a.amax(rd, keepdim) : a.amin(rd, keepdim);
    } else if (p == 0) {
      out = (a != 0.0).sum(rd, keepdim).to(x.dtype());
    } else if (p == 1) {
      out = a.sum(rd, keepdim);
    } else if (p == 2) {
      out = (x * x).sum(rd, keepdim).sqrt();
    } else {
      out = a.pow(p).sum(rd, keepdim).pow(1.0 / p);
    }
  }
  return record<"norm">(out, x, Scalar(p), IntArrayRef(reduced), keepdim);
}

}  // namespace

Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const { return amax_impl(*this, dims, keepdim, true); }
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const { return amax_impl(*this, dims, keepdim, false); }
Tensor Tensor::prod() const { return prod_impl(*this, std::nullopt, false); }
Tensor Tensor::prod(std::int64_t dim, bool keepdim) const { return prod_impl(*this, dim, keepdim); }

Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  check_cpu(*this, "logsumexp");
  check_defined(*this, "logsumexp");
  // Integers are promoted to float32, as in PyTorch.
  const Tensor x = is_floating_point() ? *this : to(kFloat32);
  const auto mask = reduce_mask(x, dims, "logsumexp");
  const Shape reduced = mask_dims(mask);
  const IntArrayRef rd(reduced);
  Tensor m;
  {
    GradModeOff off;  // a constant shift: log(sum(exp(x - m))) + m is the same number for any m
    if (x.numel() == 0) {
      m = zeros(reduced_shape(x.shape(), mask, true), {.dtype = x.dtype()});
    } else {
      m = x.amax(rd, true);
      m = where(m.abs() == std::numeric_limits<double>::infinity(), 0.0, m);  // all -inf rows stay -inf
    }
  }
  const Tensor out = (x - m).exp().sum(rd, true).log() + m;
  return keepdim ? out : drop_reduced(out, x.shape(), mask);
}

Tensor Tensor::norm(double p) const { return norm_impl(*this, p, {}, false); }
Tensor Tensor::norm(double p, IntArrayRef dims, bool keepdim) const { return norm_impl(*this, p, dims, keepdim); }

}  // namespace kindling
