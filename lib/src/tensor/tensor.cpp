// Tensor basics: asking a tensor about itself, reading values out, copies and conversions.
#include "kindling/tensor/tensor.hpp"
#include "kindling/tensor/small_object_pool.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include "dispatch.hpp"
#include "kindling/tensor/autograd_hooks.hpp"
#include "internal.hpp"
#include "loops.hpp"
#include "pieces.hpp"

namespace kindling {
namespace detail {

namespace {
// Every element position of a tensor must be reachable with 64-bit arithmetic: the offset plus, along
// each dimension, the largest index times its stride. A non-empty tensor's storage guarantees it; an
// empty one has no storage to say so, and a shape such as [0, 2^40, 2^40] (a valid IDX header can
// declare one) has dimensions whose offsets overflow int64 -- so select(1, i).select(1, j) on it
// would compute a wrapped pointer (undefined behaviour). Refused here, where every tensor and view
// is made, instead of in each op (PyTorch's own strides overflow silently on such a shape).
void check_addressable(const Shape& shape, const Strides& strides, std::int64_t offset, const char* what) {
  std::int64_t reach = offset < 0 ? -offset : offset;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] <= 1) continue;
    std::int64_t span = 0;
    const std::int64_t step = strides[d] < 0 ? -strides[d] : strides[d];
    if (__builtin_mul_overflow(shape[d] - 1, step, &span) || __builtin_add_overflow(reach, span, &reach)) {
      throw ShapeError(std::string(what) + ": shape " + shape_str(shape) + " (strides " + shape_str(strides) +
                       ") cannot be addressed with 64-bit offsets: an index along its dimensions times its "
                       "strides passes 2^63, even though the tensor " +
                       (numel_of(shape) == 0 ? "is empty" : "has elements") +
                       ". Hint: a file or a shape that declares such sizes is corrupt; check where the sizes "
                       "come from.");
    }
  }
}
}  // namespace

Tensor make_tensor(const Shape& shape, DType dtype, Device device) {
  for (auto s : shape) {
    if (s < 0) throw ValueError("cannot create a tensor with a negative size: shape " + shape_str(shape));
  }
  auto impl = make_pooled<TensorImpl>();
  impl->storage = detail::allocate_storage(shape, dtype, device);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  // A non-empty tensor's storage was just allocated for every element: its offsets fit. Only an
  // empty one needs the check (and this runs for every op's result: keep it off that path).
  if (impl->storage->nbytes() == 0) check_addressable(impl->shape, impl->strides, 0, "tensor");
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor make_view(const Tensor& base, Shape shape, Strides strides, std::int64_t offset) {
  check_addressable(shape, strides, offset, "view");
  auto impl = make_pooled<TensorImpl>();
  impl->storage = base.impl()->storage;
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = base.dtype();
  return Tensor(std::move(impl));
}

void check_defined(const Tensor& t, const char* op) {
  if (!t.defined()) {
    throw ValueError(std::string(op) + ": the tensor is undefined (default-constructed). "
                     "Hint: assign it a value first, e.g. kd::zeros({...}).");
  }
}

void check_cpu(const Tensor& t, const char* op) {
  check_defined(t, op);
  if (!t.device().is_cpu()) {
    throw DeviceError(std::string(op) + ": this operation runs on the CPU but the tensor is on " +
                      t.device().str() + " (Kindling has no " + t.device().str() + " kernel for it). "
                      "Hint: call .cpu() first, or use a kernel of kd::cuda (chapter 8).");
  }
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  check_defined(a, op);
  check_defined(b, op);
  if (a.device() == b.device()) return;
  throw DeviceError(std::string(op) + ": expected all tensors to be on the same device, but the "
                    "first is on " + a.device().str() + " and the second on " + b.device().str() +
                    ". Hint: move one of them, e.g. b.to(a.device()); in a training loop move the "
                    "model once (model.to(device)) and every batch (inputs.to(device)).");
}

namespace {
int category(DType d) { return d == kBool ? 0 : (is_floating_point(d) ? 2 : 1); }
}  // namespace

DType result_type(const Tensor& a, const Tensor& b) {
  const bool a0 = a.dim() == 0, b0 = b.dim() == 0;
  if (a0 == b0) return promote_types(a.dtype(), b.dtype());
  const DType dimmed = a0 ? b.dtype() : a.dtype();
  const DType zero_d = a0 ? a.dtype() : b.dtype();
  // A 0-d tensor only wins when its category is higher (int tensor * 0-d float64 → float64).
  return category(zero_d) > category(dimmed) ? zero_d : dimmed;
}

DType result_type(const Tensor& a, const Scalar& s) {
  const int sc = s.is_floating_point() ? 2 : (s.is_integral() ? 1 : 0);
  if (sc <= category(a.dtype())) return a.dtype();
  return sc == 2 ? kFloat32 : kInt64;  // a Python number takes the default dtype of its category
}

Tensor scalar_to_tensor(const Scalar& s, DType dtype) {
  Tensor t = make_tensor({}, dtype);
  dispatch_all(dtype, "scalar", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // A 16-bit float is rounded from the float32 value, as c10 converts a double (double -> float ->
    // half, so PyTorch rounds twice too).
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) *t.data_ptr<T>() = T(s.to<float>());
    else *t.data_ptr<T>() = s.to<T>();
  });
  return t;
}

namespace {
/// PyTorch's rule (c10's `overflows<To>()`, used by checked_convert) for storing s in a T:
///  - any number converts to bool;
///  - a floating-point number must lie in [lowest, max] of T; inf and NaN only go into types that
///    have them (2.5 -> uint8 truncates to 2, but -0.5, 256.0, NaN and inf do not fit);
///  - an integer must lie in T's range, except that an unsigned T also takes -max..-1, which wrap
///    around by two's complement (uint8 accepts -255..255: fill_(-1) writes 255, as in PyTorch).
/// The limits scalar_fits checks against: T's own, and for the 16-bit floats those of the value they
/// hold (float16: finite up to 65504; bfloat16: float32's range), as c10's numeric_limits<Half> gives.
template <class T> struct FitLimits : std::numeric_limits<T> {};
template <> struct FitLimits<Half> : std::numeric_limits<float> {
  static constexpr float max() { return 65504.0f; }
  static constexpr float lowest() { return -65504.0f; }
};
template <> struct FitLimits<BFloat16> : std::numeric_limits<float> {
  static constexpr float max() { return std::bit_cast<float>(0x7F7F0000u); }  // 3.3895e38
  static constexpr float lowest() { return -max(); }
};

template <class T> bool scalar_fits(const Scalar& s) {
  using L = FitLimits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return true;
  } else {
    if (s.is_bool()) return true;
    if (s.is_floating_point()) {
      const double d = s.to_double();
      if (std::isinf(d)) return L::has_infinity;
      if (std::isnan(d)) return L::has_quiet_NaN;
      return d >= static_cast<double>(L::lowest()) && d <= static_cast<double>(L::max());
    }
    const std::int64_t i = s.to_int();
    if constexpr (!std::is_integral_v<T>) {
      return static_cast<double>(i) >= static_cast<double>(L::lowest()) &&
             static_cast<double>(i) <= static_cast<double>(L::max());
    } else if constexpr (std::is_unsigned_v<T>) {
      const auto max = static_cast<std::uint64_t>(L::max());
      return i >= 0 ? static_cast<std::uint64_t>(i) <= max : std::uint64_t(0) - static_cast<std::uint64_t>(i) <= max;
    } else {
      return i >= static_cast<std::int64_t>(L::lowest()) && i <= static_cast<std::int64_t>(L::max());
    }
  }
}

std::string scalar_str(const Scalar& s) {
  if (s.is_bool()) return s.to_int() ? "true" : "false";
  if (s.is_integral()) return std::to_string(s.to_int());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", s.to_double());
  return buf;
}
}  // namespace

void check_scalar_fits(const Scalar& s, DType dtype, const char* op) {
  const bool fits = dispatch_all(dtype, op, [&](auto tag) { return scalar_fits<typename decltype(tag)::type>(s); });
  if (fits) return;
  const std::string range = dispatch_all(dtype, op, [&](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
      const auto max = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
      return "0 to " + std::to_string(max) + "; -" + std::to_string(max) + " to -1 wrap around";
    } else if constexpr (std::is_integral_v<T>) {
      return std::to_string(static_cast<std::int64_t>(std::numeric_limits<T>::lowest())) + " to " +
             std::to_string(static_cast<std::int64_t>(std::numeric_limits<T>::max()));
    } else {
      char buf[64];
      std::snprintf(buf, sizeof buf, "finite values up to %g in magnitude, inf and nan",
                    static_cast<double>(FitLimits<T>::max()));
      return buf;
    }
  });
  throw ValueError(std::string(op) + ": value " + scalar_str(s) + " cannot be converted to " + dtype_name(dtype) +
                   " without overflow (" + dtype_name(dtype) + " holds " + range + "). Hint: use a wider dtype, "
                   "e.g. {.dtype = kd::kInt64} or kd::kFloat64, or a value in range.");
}

Tensor checked_scalar_to_tensor(const Scalar& s, DType dtype, const char* op) {
  check_scalar_fits(s, dtype, op);
  return scalar_to_tensor(s, dtype);
}

namespace {

// Two tensors of one shape whose elements sit at the same places of one dense block each (both
// contiguous, or both the same transpose): element i of one is element i of the other, so a cast
// between them is one flat loop over the block.
bool same_dense_layout(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t d = 0; d < a.shape().size(); ++d)
    if (a.shape()[d] > 1 && a.strides()[d] != b.strides()[d]) return false;
  return non_overlapping_and_dense(a.shape(), a.strides());
}

// float32 <-> bfloat16 over n elements: the rounding of float_to_bfloat16_bits (half.hpp) written
// without a branch, so that the compiler vectorises it (every autocast cast of a weight, an
// activation or a gradient goes through here; the element loop below takes 5-10x longer).
void float_to_bfloat16_block(const float* in, std::uint16_t* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint32_t x;
    std::memcpy(&x, in + i, sizeof x);
    const std::uint32_t rounded = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
    out[i] = static_cast<std::uint16_t>((x & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC0u : rounded);
  }
}
void float_to_bfloat16_flat(const float* in, std::uint16_t* out, std::int64_t n) {
  // A source past the caches (an input batch cast for autocast, read once from memory) is
  // prefetched 8 KB ahead: the loop is waiting for memory, and asking early hides the latency
  // (64 x 784 floats cast in ~9 us instead of ~13 us here).
  constexpr std::int64_t kBlock = 1024, kAhead = 2048, kLine = 16;  // in floats; 64-byte lines
  if (n < 4 * kAhead) return float_to_bfloat16_block(in, out, n);
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t ahead_end = std::min(n, b + kAhead + kBlock);
    for (std::int64_t l = b + kAhead; l < ahead_end; l += kLine) __builtin_prefetch(in + l, 0, 0);
    float_to_bfloat16_block(in + b, out + b, std::min(kBlock, n - b));
  }
}
void bfloat16_to_float_flat(const std::uint16_t* in, float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t x = static_cast<std::uint32_t>(in[i]) << 16;
    std::memcpy(out + i, &x, sizeof x);
  }
}

// The fast path of copy_into; false when it does not apply.
bool copy_flat_16bit(const Tensor& dst, const Tensor& src) {
  const bool f2b = src.dtype() == kFloat32 && dst.dtype() == kBFloat16;
  const bool b2f = src.dtype() == kBFloat16 && dst.dtype() == kFloat32;
  if ((!f2b && !b2f) || !same_dense_layout(dst, src)) return false;
  if (f2b) float_to_bfloat16_flat(static_cast<const float*>(src.raw_data_ptr()),
                                  static_cast<std::uint16_t*>(dst.raw_data_ptr()), src.numel());
  else bfloat16_to_float_flat(static_cast<const std::uint16_t*>(src.raw_data_ptr()),
                              static_cast<float*>(dst.raw_data_ptr()), src.numel());
  return true;
}

// A floating-point value converted to an integer type. C++ leaves NaN, the infinities and values
// out of the target's range undefined; PyTorch on x86 gets what the CPU's truncating conversion
// gives (cvttss2si/cvttsd2si): the value truncated toward zero when it fits in 32 bits (64 for
// int64), otherwise the "integer indefinite" value, the type's minimum. Narrower types go through
// 32 bits and keep the low bits (70000.0 -> uint8 112, NaN -> 0). Made the rule here, for every
// source type (float16 and bfloat16 too), so that results are defined and equal PyTorch's.
template <class D, class S>
D float_to_integer(S v) {
  double value;
  if constexpr (std::is_same_v<S, double>) value = v;
  else value = static_cast<float>(v);  // float, Half and BFloat16 widen to float exactly
  using Wide = std::conditional_t<sizeof(D) == 8, std::int64_t, std::int32_t>;
  const double limit = std::ldexp(1.0, std::numeric_limits<Wide>::digits);  // 2^31 or 2^63
  const Wide wide = (value > -limit - 1.0 && value < limit) ? static_cast<Wide>(value)
                                                             : std::numeric_limits<Wide>::min();
  return static_cast<D>(wide);  // modular for narrower types (defined since C++20)
}

}  // namespace

void copy_into(const Tensor& dst, const Tensor& src) {
  if (copy_flat_16bit(dst, src)) return;
  // Same dtype and shape: the plain strided copy, chapter 1's exercise 4 (pieces.hpp).
  // (float16/bfloat16 are moved by the conversion loop below as themselves: the exercise covers
  // chapter 1's five dtypes.)
  if (dst.dtype() == src.dtype() && dst.shape() == src.shape() && !is_reduced_floating_point(dst.dtype())) {
    strided_copy(dst, piece_input(src));
    return;
  }
  // Every pair of dtypes: a 16-bit float converts through float32 (exactly, in that direction; the
  // other way rounds to nearest even), so double -> half rounds twice, exactly as PyTorch does.
  dispatch_all(dst.dtype(), "copy_", [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    dispatch_all(src.dtype(), "copy_", [&](auto stag) {
      using S = typename decltype(stag)::type;
      if constexpr (std::is_same_v<S, D>) unary_loop<S, D>(dst, src, [](S v) { return v; });  // bits kept
      else if constexpr (std::is_integral_v<D> && !std::is_same_v<D, bool> && !std::is_integral_v<S>)
        unary_loop<S, D>(dst, src, [](S v) { return float_to_integer<D>(v); });
      else unary_loop<S, D>(dst, src, [](S v) { return static_cast<D>(v); });
    });
  });
}

}  // namespace detail

// ---- asking a tensor about itself ------------------------------------------------------------------
namespace {
const TensorImpl& need(const std::shared_ptr<TensorImpl>& impl) {
  if (!impl) {
    throw ValueError("Tensor: the tensor is undefined (default-constructed). "
                     "Hint: assign it a value first, e.g. kd::zeros({...}).");
  }
  return *impl;
}
}  // namespace

std::int64_t Tensor::dim() const { return static_cast<std::int64_t>(need(impl_).shape.size()); }
const Shape& Tensor::shape() const { return need(impl_).shape; }
// A 0-d tensor has no size or stride to read: wrap_dim lets dims 0 and -1 through for it (reductions
// accept them, as in PyTorch), so size() and stride() refuse it themselves.
namespace {
[[noreturn]] void no_dims(std::int64_t d, const char* op) {
  throw IndexError(std::string(op) + ": dimension specified as " + std::to_string(d) +
                   " but the tensor has no dimensions (a 0-d tensor; its value is item(), its element "
                   "count numel()).");
}
}  // namespace
std::int64_t Tensor::size(std::int64_t d) const {
  const Shape& s = shape();
  if (s.empty()) no_dims(d, "size");
  return s[wrap_dim(d, static_cast<std::int64_t>(s.size()), "size")];
}
const Strides& Tensor::strides() const { return need(impl_).strides; }
std::int64_t Tensor::stride(std::int64_t d) const {
  const Strides& s = strides();
  if (s.empty()) no_dims(d, "stride");
  return s[wrap_dim(d, static_cast<std::int64_t>(s.size()), "stride")];
}
std::int64_t Tensor::storage_offset() const { return need(impl_).offset; }
std::int64_t Tensor::numel() const { return numel_of(shape()); }
DType Tensor::dtype() const { return need(impl_).dtype; }
Device Tensor::device() const { return need(impl_).storage->device(); }
std::size_t Tensor::element_size() const { return kindling::element_size(dtype()); }
std::size_t Tensor::nbytes() const { return numel() * element_size(); }
bool Tensor::is_floating_point() const { return kindling::is_floating_point(dtype()); }
const std::shared_ptr<Storage>& Tensor::storage() const { return need(impl_).storage; }
std::uint64_t Tensor::version() const { return storage()->version(); }
void* Tensor::raw_data_ptr() const { return need(impl_).data_ptr(); }

bool Tensor::shares_storage(const Tensor& other) const {
  return defined() && other.defined() && impl_->storage == other.impl_->storage;
}

// Tensor::is_contiguous() is chapter 1's exercise 1 (pieces.hpp): defined in the answer file.

template <class T> T* Tensor::data_ptr() const {
  if (dtype() != dtype_of<T>()) {
    throw DTypeError(std::string("data_ptr<") + dtype_name(dtype_of<T>()) + ">: the tensor's dtype is " +
                     dtype_name(dtype()) + ". Hint: use data_ptr<T>() with the matching C++ type "
                     "(float for float32, double for float64, int64_t for int64, uint8_t, bool, kd::Half for "
                     "float16, kd::BFloat16 for bfloat16).");
  }
  return static_cast<T*>(raw_data_ptr());
}

template <class T> T Tensor::item() const {
  if (numel() != 1) {
    throw ValueError("item(): a tensor with " + std::to_string(numel()) + " elements (shape " +
                     shape_str(shape()) + ") cannot be converted to a single number. Hint: reduce it "
                     "first (sum(), mean()) or index one element.");
  }
  detail::check_cpu(*this, "item");
  if (auto observe = detail::value_read_observer()) [[unlikely]] observe(*this, "item()");
  return detail::dispatch_all(dtype(), "item", [&](auto tag) {
    using S = typename decltype(tag)::type;
    return static_cast<T>(*static_cast<const S*>(raw_data_ptr()));
  });
}

template <class T> std::vector<T> Tensor::to_vector() const {
  detail::check_cpu(*this, "to_vector");
  if (auto observe = detail::value_read_observer()) [[unlikely]] observe(*this, "to_vector()");
  std::vector<T> out(numel());
  if (out.empty()) return out;
  // Wrap the vector's memory as a contiguous tensor and let copy do strides + conversion.
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(out.data(), out.size() * sizeof(T), kCPU, nullptr);
  impl->shape = shape();
  impl->strides = contiguous_strides(shape());
  impl->dtype = dtype_of<T>();
  detail::copy_into(Tensor(impl), *this);
  return out;
}

#define KINDLING_INSTANTIATE(T)                     \
  template T* Tensor::data_ptr<T>() const;          \
  template T Tensor::item<T>() const;               \
  template std::vector<T> Tensor::to_vector<T>() const;
KINDLING_INSTANTIATE(float)
KINDLING_INSTANTIATE(double)
KINDLING_INSTANTIATE(std::int64_t)
KINDLING_INSTANTIATE(std::uint8_t)
KINDLING_INSTANTIATE(Half)
KINDLING_INSTANTIATE(BFloat16)
template bool* Tensor::data_ptr<bool>() const;
template bool Tensor::item<bool>() const;
template int Tensor::item<int>() const;
#undef KINDLING_INSTANTIATE

template <> std::vector<bool> Tensor::to_vector<bool>() const {
  if (auto observe = detail::value_read_observer()) [[unlikely]] observe(*this, "to_vector()");
  auto bytes = to(kBool).contiguous();
  const bool* p = bytes.data_ptr<bool>();
  return std::vector<bool>(p, p + numel());
}

}  // namespace kindling
