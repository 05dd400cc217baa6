// Reductions: sum, mean, max/min (whole tensor and along a dim, with indices), argmax/argmin, var/std.
//
// dtype rules are PyTorch's: sum of bool/uint8/int64 gives int64 (so counting a mask never overflows
// a byte); mean/var/std need a floating tensor. float32 sums are accumulated in float64 (pairwise
// within a row), so the result is as close to the exact sum as float32 can hold — like torch.sum's
// cascade summation, and unlike a naive running float sum whose error grows with the length.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "dispatch.hpp"
#include "device_ops.hpp"
#include "internal.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"
#include "pieces.hpp"
#include "reduce.hpp"

namespace kindling {
namespace {
using namespace detail;

// ---- sum / mean --------------------------------------------------------------------------------------

/// The sum over the masked dims, in keepdim shape, accumulated in float64 (floating inputs) or
/// int64 (bool/integer inputs): chapter 1's exercise 6 (pieces.hpp), checked here so that a wrong
/// answer gives a clear error instead of a wrong read.
Tensor sum_acc(const Tensor& x, const std::vector<bool>& mask) {
  const DType acc_dtype = is_floating_point(x.dtype()) ? kFloat64 : kInt64;
  const Shape keep = reduced_shape(x.shape(), mask, /*keepdim=*/true);
  // float16/bfloat16 are widened first (exactly) and summed like float32.
  Tensor acc = sum_keepdim(piece_input(cast(x, compute_dtype_of(x.dtype()))), mask);
  if (!acc.defined() || acc.shape() != keep || acc.dtype() != acc_dtype) {
    throw ValueError("sum: the reduction (ch01.ex6, sum_keepdim) returned " +
                     (acc.defined() ? dname(acc.dtype()) + " of shape " + shape_str(acc.shape()) : std::string("an undefined tensor")) +
                     " for an input of shape " + shape_str(x.shape()) + "; expected " + dname(acc_dtype) + " of shape " +
                     shape_str(keep) + " (keepdim shape, accumulated in " + dname(acc_dtype) + ").");
  }
  return acc.is_contiguous() ? acc : contiguous_copy(acc);
}

/// The contiguous accumulator seen in the final shape and converted to the result dtype.
Tensor finish(const Tensor& acc, const Shape& out_shape, DType out_dtype) {
  return cast(make_view(acc, out_shape, contiguous_strides(out_shape), acc.storage_offset()), out_dtype);
}

// On a device, the two sums a training step needs have kernels (device_ops.hpp): over dim 0 of a
// matrix (a Linear bias's gradient), and over dims of size 1 only, which adds nothing and is a copy
// in the reduced shape (the engine's sum_to of a [1] gradient back to a 0-d loss, e.g. after
// GradScaler.scale's [1] scale). Undefined for any other sum, which then keeps check_cpu's error.
Tensor device_sum(const DeviceOps& dev, const Tensor& x, IntArrayRef dims, bool keepdim, bool all) {
  if (dev.sum_dim0 && !all && x.dim() == 2 && dims.size() == 1 && (dims[0] == 0 || dims[0] == -2)) {
    const Tensor out = dev.sum_dim0(x);
    const Shape reduced{0};
    return record<"sum_dim">(keepdim ? out.unsqueeze(0) : out, x, IntArrayRef(reduced), keepdim);
  }
  if (!dev.binary || !x.is_contiguous()) return Tensor();
  const auto mask = reduce_mask(x, all ? IntArrayRef{} : dims, "sum");
  for (std::size_t d = 0; d < mask.size(); ++d)
    if (mask[d] && x.shape()[d] != 1) return Tensor();
  const Shape out_shape = reduced_shape(x.shape(), mask, keepdim);
  const Tensor one = scalar_tensor(1.0, {.dtype = x.dtype()}).to(x.device());
  const Tensor view = make_view(x, out_shape, contiguous_strides(out_shape), x.storage_offset());
  const Tensor out = dev.binary(2, view, one);  // x * 1: exact, and a new tensor
  if (all) return record<"sum">(out, x);
  const Shape reduced = mask_dims(mask);
  return record<"sum_dim">(out, x, IntArrayRef(reduced), keepdim);
}

// sum() records "sum" (SumBackward0); sum(dims) records "sum_dim" with the normalised dims
// (SumBackward1): two PyTorch functions, two node names. mean likewise.
Tensor sum_impl(const Tensor& x, IntArrayRef dims, bool keepdim, bool all) {
  if (const DeviceOps* dev = device_ops(x); dev && device_float(x.dtype())) {
    if (Tensor out = device_sum(*dev, x, dims, keepdim, all); out.defined()) return out;
  }
  check_cpu(x, "sum");
  const auto mask = reduce_mask(x, dims, "sum");
  const DType out_dtype = is_floating_point(x.dtype()) ? x.dtype() : kInt64;
  Tensor out = finish(sum_acc(x, mask), reduced_shape(x.shape(), mask, keepdim), out_dtype);
  if (all) return record<"sum">(out, x);
  const Shape reduced = mask_dims(mask);
  return record<"sum_dim">(out, x, IntArrayRef(reduced), keepdim);
}

Tensor mean_impl(const Tensor& x, IntArrayRef dims, bool keepdim, bool all) {
  check_cpu(x, "mean");
  if (!x.is_floating_point()) {
    throw DTypeError("mean: could not infer the output dtype: the input is " + dname(x.dtype()) + " (shape " +
                     shape_str(x.shape()) + "), but mean needs a floating-point tensor. Hint: convert "
                     "first, e.g. x.to(kd::kFloat32).mean().");
  }
  const auto mask = reduce_mask(x, dims, "mean");
  Tensor acc = sum_acc(x, mask);
  // An empty reduction divides 0 by 0 and gives NaN, as in PyTorch.
  const double n = static_cast<double>(reduced_count(x.shape(), mask));
  double* p = acc.data_ptr<double>();
  for (std::int64_t i = 0; i < acc.numel(); ++i) p[i] /= n;
  Tensor out = finish(acc, reduced_shape(x.shape(), mask, keepdim), x.dtype());
  if (all) return record<"mean">(out, x);
  const Shape reduced = mask_dims(mask);
  return record<"mean_dim">(out, x, IntArrayRef(reduced), keepdim);
}

// ---- max / min / argmax / argmin ---------------------------------------------------------------------

/// Best element of a strided lane and its index: the first occurrence wins ties, and the first NaN
/// wins over everything (NaN propagates, as in torch.max).
template <class T, bool IsMax>
void best_in_lane(const char* p, std::int64_t stride, std::int64_t n, T& best, std::int64_t& best_i) {
  best = *reinterpret_cast<const T*>(p);
  best_i = 0;
  if (best != best) return;
  for (std::int64_t i = 1; i < n; ++i) {
    const T v = *reinterpret_cast<const T*>(p + i * stride);
    if (v != v) {
      best = v;
      best_i = i;
      return;
    }
    if (IsMax ? v > best : v < best) {
      best = v;
      best_i = i;
    }
  }
}

void refuse_empty_all(const Tensor& x, const char* op) {
  if (x.numel() == 0) {
    throw ValueError(std::string(op) + ": the input is empty (shape " + shape_str(x.shape()) + ") and " + op +
                     " has no identity element. Hint: pass a dim (" + op + "(dim)) or check numel() first.");
  }
}

/// (values, indices) along dim; values keep x's dtype, indices are int64.
std::pair<Tensor, Tensor> extreme_dim(const Tensor& x, std::int64_t dim, bool keepdim, bool is_max,
                                      const char* op) {
  check_cpu(x, op);
  const std::int64_t d = wrap_dim(dim, x.dim(), op);
  if (x.dim() > 0 && x.size(d) == 0) {
    throw IndexError(std::string(op) + ": expected reduction dim " + std::to_string(d) + " to have non-zero "
                     "size, but the input has shape " + shape_str(x.shape()) + ". Hint: " + op + " of no "
                     "elements is undefined; check the size first.");
  }
  std::vector<bool> mask(x.dim(), false);
  if (x.dim() > 0) mask[d] = true;
  const Shape out_shape = reduced_shape(x.shape(), mask, keepdim);
  if (is_reduced_floating_point(x.dtype())) {  // the best of the widened values is exact: narrow it back
    auto [values, indices] = extreme_dim(cast(x, kFloat32), dim, keepdim, is_max, op);
    return {cast(values, x.dtype()), indices};
  }
  Tensor values = make_tensor(out_shape, x.dtype());
  Tensor indices = make_tensor(out_shape, kInt64);
  dispatch(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* vp = values.data_ptr<T>();
    std::int64_t* ip = indices.data_ptr<std::int64_t>();
    for_each_lane(x, d, [&](const char* p, std::int64_t s, std::int64_t n, std::int64_t k) {
      if (is_max) best_in_lane<T, true>(p, s, n, vp[k], ip[k]);
      else best_in_lane<T, false>(p, s, n, vp[k], ip[k]);
    });
  });
  return {values, indices};
}

/// Largest/smallest element as a 0-d tensor.
Tensor extreme_all(const Tensor& x, bool is_max, const char* op) {
  check_cpu(x, op);
  refuse_empty_all(x, op);
  if (is_reduced_floating_point(x.dtype())) return cast(extreme_all(cast(x, kFloat32), is_max, op), x.dtype());
  Tensor acc = make_tensor(Shape(x.dim(), 1), x.dtype());
  dispatch(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    *acc.data_ptr<T>() = *static_cast<const T*>(x.raw_data_ptr());  // element [0, 0, ...]
    reduce_loop(acc, x, [is_max](char* a, char* xp, std::int64_t, std::int64_t sx, std::int64_t n) {
      // acc has one element, so every row reduces into it (its stride is 0).
      T m = *reinterpret_cast<T*>(a);
      for (std::int64_t i = 0; i < n; ++i) {
        const T v = *reinterpret_cast<const T*>(xp + i * sx);
        const bool better = is_max ? v > m : v < m;
        m = (better || v != v) ? v : m;  // once m is NaN nothing is "better", so NaN sticks
      }
      *reinterpret_cast<T*>(a) = m;
    });
  });
  return make_view(acc, {}, {}, 0);
}

/// Index of the best element of the flattened tensor (0-d int64).
Tensor arg_all(const Tensor& x, bool is_max, const char* op) {
  check_cpu(x, op);
  refuse_empty_all(x, op);
  const Tensor xc = contiguous_copy(x);
  const Tensor flat = make_view(xc, {xc.numel()}, {1}, xc.storage_offset());
  return extreme_dim(flat, 0, false, is_max, op).second;
}

// ---- var / std ---------------------------------------------------------------------------------------

void check_var_dtype(const Tensor& x, const char* op) {
  if (!x.is_floating_point()) {
    throw DTypeError(std::string(op) + ": only floating-point tensors are supported (got " + dname(x.dtype()) +
                     ", shape " + shape_str(x.shape()) + "). Hint: convert first, e.g. x.to(kd::kFloat32)." +
                     op + "().");
  }
}

/// `dim` value meaning "reduce every element" for var_impl.
constexpr std::int64_t kAllDims = INT64_MIN;

/// Variance (or, with `root`, standard deviation) of each lane along `dim` (all elements when
/// dim == kAllDims), two passes in float64: mean first, then the sum of squared deviations —
/// accurate even when the mean is large. Rounded once to x's dtype.
Tensor var_impl(const Tensor& x, std::int64_t dim, bool keepdim, std::int64_t correction, const char* op,
                bool root = false) {
  check_cpu(x, op);
  check_var_dtype(x, op);
  if (is_reduced_floating_point(x.dtype()))
    return cast(var_impl(cast(x, kFloat32), dim, keepdim, correction, op, root), x.dtype());
  Tensor src = x;
  std::int64_t d = 0;
  Shape out_shape;
  if (dim == kAllDims) {  // all elements: one lane over the flattened tensor
    const Tensor xc = contiguous_copy(x);
    src = make_view(xc, {xc.numel()}, {1}, xc.storage_offset());
  } else {
    d = wrap_dim(dim, x.dim(), op);
    std::vector<bool> mask(x.dim(), false);
    if (x.dim() > 0) mask[d] = true;
    out_shape = reduced_shape(x.shape(), mask, keepdim);
  }
  Tensor out = make_tensor(out_shape, x.dtype());
  dispatch_floating(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* op_ = out.data_ptr<T>();
    for_each_lane(src, d, [&](const char* p, std::int64_t s, std::int64_t n, std::int64_t k) {
      auto at = [&](std::int64_t i) { return static_cast<double>(*reinterpret_cast<const T*>(p + i * s)); };
      double mean = 0;
      if (s == static_cast<std::int64_t>(sizeof(T))) mean = pairwise_sum<T, double>(reinterpret_cast<const T*>(p), n);
      else for (std::int64_t i = 0; i < n; ++i) mean += at(i);
      mean /= static_cast<double>(n);
      double ss = 0;
      for (std::int64_t i = 0; i < n; ++i) ss += (at(i) - mean) * (at(i) - mean);
      // PyTorch divides by max(0, n - correction): 0/0 gives NaN, x/0 gives inf.
      const double denom = std::max<double>(0.0, static_cast<double>(n - correction));
      op_[k] = static_cast<T>(root ? std::sqrt(ss / denom) : ss / denom);
    });
  });
  return out;
}

Tensor var_all(const Tensor& x, std::int64_t correction, const char* op, bool root = false) {
  return var_impl(x, kAllDims, false, correction, op, root);
}

}  // namespace

// ---- methods -----------------------------------------------------------------------------------------
Tensor Tensor::sum() const { return sum_impl(*this, {}, false, true); }
Tensor Tensor::sum(IntArrayRef dims, bool keepdim) const {
  return sum_impl(*this, dims, keepdim, dims.empty());
}
Tensor Tensor::sum(std::int64_t dim, bool keepdim) const { return sum_impl(*this, {dim}, keepdim, false); }

Tensor Tensor::mean() const { return mean_impl(*this, {}, false, true); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim) const {
  return mean_impl(*this, dims, keepdim, dims.empty());
}
Tensor Tensor::mean(std::int64_t dim, bool keepdim) const { return mean_impl(*this, {dim}, keepdim, false); }

Tensor Tensor::max() const { return detail::record<"max">(extreme_all(*this, true, "max"), *this); }
Tensor Tensor::min() const { return detail::record<"min">(extreme_all(*this, false, "min"), *this); }

std::pair<Tensor, Tensor> Tensor::max(std::int64_t dim, bool keepdim) const {
  auto [values, indices] = extreme_dim(*this, dim, keepdim, true, "max");
  Tensor outs[2] = {values, indices};
  detail::record_outputs<"max_dim">(outs, 2, *this, wrap_dim(dim, this->dim(), "max"), keepdim);
  return {outs[0], outs[1]};
}
std::pair<Tensor, Tensor> Tensor::min(std::int64_t dim, bool keepdim) const {
  auto [values, indices] = extreme_dim(*this, dim, keepdim, false, "min");
  Tensor outs[2] = {values, indices};
  detail::record_outputs<"min_dim">(outs, 2, *this, wrap_dim(dim, this->dim(), "min"), keepdim);
  return {outs[0], outs[1]};
}

namespace {
// PyTorch has no argmax/argmin kernel for bool (max/min of a bool tensor are fine).
const Tensor& refuse_bool_arg(const Tensor& x, const char* op) {
  check_defined(x, op);
  if (x.dtype() == kBool) {
    throw DTypeError(std::string(op) + ": bool tensors are not supported (shape " + shape_str(x.shape()) +
                     "), as in PyTorch. Hint: convert first, e.g. mask.to(kd::kUInt8)." + op + "(), or use "
                     "max(dim) whose indices are the same.");
  }
  return x;
}
}  // namespace

Tensor Tensor::argmax() const { return arg_all(refuse_bool_arg(*this, "argmax"), true, "argmax"); }
Tensor Tensor::argmin() const { return arg_all(refuse_bool_arg(*this, "argmin"), false, "argmin"); }
Tensor Tensor::argmax(std::int64_t dim, bool keepdim) const {
  return extreme_dim(refuse_bool_arg(*this, "argmax"), dim, keepdim, true, "argmax").second;
}
Tensor Tensor::argmin(std::int64_t dim, bool keepdim) const {
  return extreme_dim(refuse_bool_arg(*this, "argmin"), dim, keepdim, false, "argmin").second;
}

// any / all: "is some / every element non-zero?" (NaN counts as non-zero). Not differentiable, so
// they are made of recorded-free steps: count the non-zeros, compare with 0 or with the count.
// uint8 inputs give uint8 (PyTorch keeps that for old mask code); everything else gives bool.
namespace {
Tensor as_any_all_dtype(const Tensor& x, const Tensor& result) {
  return x.dtype() == kUInt8 ? result.to(kUInt8) : result;
}
}  // namespace

Tensor Tensor::any() const {
  check_cpu(*this, "any");
  return as_any_all_dtype(*this, (*this != 0).sum() > 0);
}
Tensor Tensor::all() const {
  check_cpu(*this, "all");
  return as_any_all_dtype(*this, (*this != 0).sum() == numel());
}
Tensor Tensor::any(std::int64_t dim, bool keepdim) const {
  check_cpu(*this, "any");
  return as_any_all_dtype(*this, (*this != 0).sum(dim, keepdim) > 0);
}
Tensor Tensor::all(std::int64_t dim, bool keepdim) const {
  check_cpu(*this, "all");
  const std::int64_t n = this->dim() == 0 ? 1 : size(dim);
  return as_any_all_dtype(*this, (*this != 0).sum(dim, keepdim) == n);
}
Tensor any(const Tensor& x) { return x.any(); }
Tensor any(const Tensor& x, std::int64_t dim, bool keepdim) { return x.any(dim, keepdim); }
Tensor all(const Tensor& x) { return x.all(); }
Tensor all(const Tensor& x, std::int64_t dim, bool keepdim) { return x.all(dim, keepdim); }

// var/std record the reduced dims (empty = all), the correction and keepdim by name.
Tensor Tensor::var(std::int64_t correction) const {
  return detail::record<"var">(var_all(*this, correction, "var"), *this, IntArrayRef(), correction, false);
}
Tensor Tensor::var(std::int64_t dim, bool keepdim, std::int64_t correction) const {
  Tensor out = var_impl(*this, dim, keepdim, correction, "var");
  const std::int64_t d = wrap_dim(dim, this->dim(), "var");
  return detail::record<"var">(out, *this, IntArrayRef(&d, 1), correction, keepdim);
}
Tensor Tensor::std(std::int64_t correction) const {
  Tensor out = var_all(*this, correction, "std", /*root=*/true);
  return detail::record<"std">(out, *this, IntArrayRef(), correction, false);
}
Tensor Tensor::std(std::int64_t dim, bool keepdim, std::int64_t correction) const {
  Tensor out = var_impl(*this, dim, keepdim, correction, "std", /*root=*/true);
  const std::int64_t d = wrap_dim(dim, this->dim(), "std");
  return detail::record<"std">(out, *this, IntArrayRef(&d, 1), correction, keepdim);
}

}  // namespace kindling
