// Making tensors: from nested lists and vectors (always a copy), constants, ranges, identity, and
// from memory the caller owns (from_blob: no copy).
#include "kindling/tensor/creation.hpp"

#include <cmath>
#include <string>

#include "dispatch.hpp"
#include "kindling/tensor/checked.hpp"
#include "internal.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

// Gradients only flow through floating-point tensors (PyTorch refuses the same thing).
Tensor finish(Tensor t, const TensorOptions& options, const char* op) {
  if (options.requires_grad) {
    if (!is_floating_point(t.dtype())) {
      throw DTypeError(std::string(op) + ": only floating-point tensors can require gradients, but the dtype is " +
                       dtype_name(t.dtype()) + ". Hint: use .dtype = kd::kFloat32.");
    }
    detail::set_requires_grad(*t.impl());
  }
  return options.device == kCPU ? t : t.to(options.device);
}

// Ranges must match PyTorch bit for bit, so every `a + x * y` below says how it rounds instead of
// leaving it to the compiler: with -march=native (FMA) g++ fuses some of them into one fma (a single
// rounding) and not others, differently at -O2 and -O3. PyTorch's own kernels (g++ -O2 -mfma) round
// `start + step * i` once (fused: std::fma) and the lanes of a SIMD block `base + k * step` twice
// (rounded_product, then the add) — checked against torch 1.13 on 310 random linspaces.
template <class T>
T rounded_product(T x, T y) {
  volatile T p = x * y;  // volatile: the product is stored rounded, never fused into the next add
  return p;
}

// ---- nested lists --------------------------------------------------------------------------------
// Walks the list once to find its shape, checking that every sub-list at a depth has the same length.
void infer_shape(const NestedList& node, std::size_t depth, Shape& shape, bool& seen_leaf, std::size_t& leaf_depth) {
  if (node.is_leaf()) {
    if (!seen_leaf) {
      seen_leaf = true;
      leaf_depth = depth;
      shape.resize(depth);
    } else if (depth != leaf_depth) {
      throw ShapeError("tensor: ragged nested list: a number appears at depth " + str(depth) +
                       " but others at depth " + str(leaf_depth) +
                       ". Hint: every row must have the same length and nesting (like a NumPy array).");
    }
    return;
  }
  const auto n = static_cast<std::int64_t>(node.items().size());
  if (seen_leaf && depth >= leaf_depth) {
    throw ShapeError("tensor: ragged nested list: a list appears at depth " + str(depth) + " where numbers were "
                     "found before. Hint: every row must have the same nesting.");
  }
  if (shape.size() <= depth) {
    shape.resize(depth + 1, -1);
  }
  if (shape[depth] == -1) {
    shape[depth] = n;
  } else if (shape[depth] != n) {
    throw ShapeError("tensor: ragged nested list: at depth " + str(depth) + " a list has " + str(n) +
                     " elements but an earlier one has " + str(shape[depth]) +
                     ". Hint: every row must have the same length (like a NumPy array).");
  }
  for (const auto& item : node.items()) infer_shape(item, depth + 1, shape, seen_leaf, leaf_depth);
}

// Like torch.tensor: any float → float32; else any int → int64; else (all bools) → bool.
void infer_kind(const NestedList& node, bool& any_float, bool& any_int) {
  if (node.is_leaf()) {
    any_float |= node.is_float();
    any_int |= !node.is_float() && !node.is_bool();
    return;
  }
  for (const auto& item : node.items()) infer_kind(item, any_float, any_int);
}

template <class T> void fill_values(const NestedList& node, T*& out) {
  if (node.is_leaf()) {
    *out++ = static_cast<T>(node.value());
    return;
  }
  for (const auto& item : node.items()) fill_values(item, out);
}

}  // namespace

Tensor tensor(const NestedList& data) {
  bool any_float = false, any_int = false;
  infer_kind(data, any_float, any_int);
  std::function<bool(const NestedList&)> has_bool = [&](const NestedList& n) {
    if (n.is_leaf()) return n.is_bool();
    for (const auto& i : n.items())
      if (has_bool(i)) return true;
    return false;
  };
  // An empty list ([]) has no numbers to decide from: float32, like torch.tensor([]).
  const DType dtype = any_float ? kFloat32 : any_int ? kInt64 : has_bool(data) ? kBool : kFloat32;
  return tensor(data, TensorOptions{.dtype = dtype});
}

Tensor tensor(const NestedList& data, TensorOptions options) {
  if (is_reduced_floating_point(options.dtype)) {  // made in float32, rounded once
    const TensorOptions wide{.dtype = kFloat32};
    return finish(detail::cast(tensor(data, wide), options.dtype), options, "tensor");
  }
  Shape shape;
  bool seen_leaf = false;
  std::size_t leaf_depth = 0;
  infer_shape(data, 0, shape, seen_leaf, leaf_depth);
  for (auto& s : shape)
    if (s == -1) s = 0;  // [[], []]: the innermost empty lists fix the last size at 0
  Tensor t = detail::make_tensor(shape, options.dtype);
  detail::dispatch(options.dtype, "tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data_ptr<T>();
    fill_values(data, p);
  });
  return finish(t, options, "tensor");
}

template <class T> Tensor tensor(const std::vector<T>& data, const Shape& shape) {
  const std::int64_t n = numel_of(shape);
  if (n != static_cast<std::int64_t>(data.size())) {
    throw ShapeError("tensor: " + str(static_cast<std::int64_t>(data.size())) + " values cannot fill shape " +
                     shape_str(shape) + " (" + str(n) + " elements). Hint: the sizes must multiply to the "
                     "vector's length.");
  }
  Tensor t = detail::make_tensor(shape, dtype_of<T>());
  T* p = t.data_ptr<T>();
  for (std::int64_t i = 0; i < n; ++i) p[i] = data[i];  // a loop, not memcpy: std::vector<bool> is packed
  return t;
}
template Tensor tensor<float>(const std::vector<float>&, const Shape&);
template Tensor tensor<double>(const std::vector<double>&, const Shape&);
template Tensor tensor<std::int64_t>(const std::vector<std::int64_t>&, const Shape&);
template Tensor tensor<std::uint8_t>(const std::vector<std::uint8_t>&, const Shape&);
template Tensor tensor<bool>(const std::vector<bool>&, const Shape&);

Tensor scalar_tensor(Scalar value, TensorOptions options) {
  return finish(detail::checked_scalar_to_tensor(value, options.dtype, "scalar_tensor"), options, "scalar_tensor");
}

// ---- constants -----------------------------------------------------------------------------------
// A tensor for a device is allocated on that device first, never built on the host and copied
// over: a tensor the device cannot hold gets the device's out-of-memory error (naming cuda:0, not
// cpu), and one that fits the device is not first made to fit in host memory as well.
Tensor empty(const Shape& shape, TensorOptions options) {
  return finish(detail::make_tensor(shape, options.dtype, options.device), options, "empty");
}

Tensor full(const Shape& shape, Scalar value) {
  const DType inferred = value.is_bool() ? kBool : (value.is_integral() ? kInt64 : kFloat32);
  return full(shape, value, {.dtype = inferred});
}

Tensor full(const Shape& shape, Scalar value, TensorOptions options) {
  const Tensor v = detail::checked_scalar_to_tensor(value, options.dtype, "full");
  if (options.device != kCPU) {
    // On the device (see empty): its fill kernel for float32, else the value copied over from a
    // broadcast host view of one element.
    Tensor t = detail::make_tensor(shape, options.dtype, options.device);
    if (options.dtype == kFloat32) t.fill_(value);
    else t.copy_(detail::make_view(v, shape, Strides(shape.size(), 0), v.storage_offset()));
    return finish(t, options, "full");
  }
  Tensor t = detail::make_tensor(shape, options.dtype);
  detail::copy_into(t, v);
  return finish(t, options, "full");
}

Tensor zeros(const Shape& shape, TensorOptions options) { return full(shape, 0, options); }
Tensor ones(const Shape& shape, TensorOptions options) { return full(shape, 1, options); }

// ---- ranges --------------------------------------------------------------------------------------
Tensor arange(Scalar end) { return arange(0, end, 1); }

Tensor arange(Scalar start, Scalar end, Scalar step) {
  const bool integral = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  return arange(start, end, step, TensorOptions{.dtype = integral ? kInt64 : kFloat32});
}

Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options) {
  if (is_reduced_floating_point(options.dtype)) {  // made in float32, rounded once
    const TensorOptions wide{.dtype = kFloat32};
    return finish(detail::cast(arange(start, end, step, wide), options.dtype), options, "arange");
  }
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  if (st == 0) throw ValueError("arange: step must be nonzero.");
  if (!std::isfinite(s) || !std::isfinite(e)) {
    throw ValueError("arange: start (" + std::to_string(s) + ") and end (" + std::to_string(e) +
                     ") must be finite.");
  }
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    throw ValueError("arange: the range [" + std::to_string(s) + ", " + std::to_string(e) +
                     ") is inconsistent with the sign of step " + std::to_string(st) +
                     ". Hint: use a negative step to count down.");
  }
  // Like PyTorch: floating results are start + i * step computed in double. Integer results work
  // in int64 throughout: start and step are truncated first (arange(0, 5, 1.5, int64) steps by 1),
  // and for int64 the length is computed from the truncated bounds too.
  const bool integral = !is_floating_point(options.dtype);
  const std::int64_t si = start.to<std::int64_t>(), ei = end.to<std::int64_t>(), sti = step.to<std::int64_t>();
  if (integral && sti == 0) {
    throw ValueError("arange: step " + std::to_string(st) + " truncates to 0 for dtype " +
                     dtype_name(options.dtype) + ". Hint: use an integer step, or a floating dtype.");
  }
  std::int64_t span = 0;
  if (options.dtype == kInt64 && __builtin_sub_overflow(ei, si, &span)) {
    throw ValueError("arange: the range [" + std::to_string(si) + ", " + std::to_string(ei) +
                     ") is wider than an int64 can count. Hint: check the bounds.");
  }
  const double len = options.dtype == kInt64 ? std::ceil(static_cast<double>(span) / static_cast<double>(sti))
                                             : std::ceil((e - s) / st);
  // The length is a double: 1e19 elements (or a NaN from inf - inf) must not reach an int64 cast.
  if (!checked::fits_int64(len)) {
    throw ValueError("arange: the range [" + std::to_string(s) + ", " + std::to_string(e) + ") with step " +
                     std::to_string(st) + " would have " + std::to_string(len) +
                     " elements, more than a tensor can hold. Hint: check the bounds and the step.");
  }
  const auto n = std::max<std::int64_t>(0, static_cast<std::int64_t>(len));
  Tensor t = detail::make_tensor({n}, options.dtype);
  detail::dispatch(options.dtype, "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data_ptr<T>();
    if constexpr (std::is_floating_point_v<T>) {
      for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(std::fma(static_cast<double>(i), st, s));
    } else {
      for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(si + i * sti);
    }
  });
  return finish(t, options, "arange");
}

Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options) {
  if (is_reduced_floating_point(options.dtype)) {  // made in float32, rounded once
    const TensorOptions wide{.dtype = kFloat32};
    return finish(detail::cast(linspace(start, end, steps, wide), options.dtype), options, "linspace");
  }
  if (steps < 0) throw ValueError("linspace: number of steps must be non-negative, got " + str(steps) + ".");
  if (options.dtype == kBool) {
    throw DTypeError("linspace: bool is not supported (as in PyTorch). Hint: use a numeric dtype.");
  }
  Tensor t = detail::make_tensor({steps}, options.dtype);
  detail::dispatch(options.dtype, "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // PyTorch's CPU kernel, reproduced bit for bit: the first half counts up from start, the second
    // half down from end, so both ends are exact. The step is computed in T for floating types and
    // in double for integers, from the ends already converted to T.
    using Step = std::conditional_t<std::is_floating_point_v<T>, T, double>;
    T* p = t.data_ptr<T>();
    if (steps == 1) {
      p[0] = static_cast<T>(start);
      return;
    }
    const T a = static_cast<T>(start), b = static_cast<T>(end);
    const Step st = (static_cast<Step>(b) - static_cast<Step>(a)) / static_cast<Step>(steps - 1);
    const std::int64_t halfway = steps / 2;
    auto at = [&](std::int64_t i) -> T {
      return static_cast<T>(i < halfway ? std::fma(st, static_cast<Step>(i), static_cast<Step>(a))
                                        : std::fma(-st, static_cast<Step>(steps - i - 1), static_cast<Step>(b)));
    };
    // PyTorch fills 256-bit SIMD blocks two at a time as base + k * step (base computed as above),
    // and the leftover tail element by element; the roundings differ, so we follow the same blocks.
    constexpr std::int64_t W = 32 / sizeof(T);
    auto block = [&](std::int64_t i0) {
      const T base = at(i0);
      for (std::int64_t k = 0; k < W; ++k)
        p[i0 + k] = static_cast<T>(static_cast<Step>(base) + rounded_product(static_cast<Step>(k), st));
    };
    std::int64_t i = 0;
    for (; i + 2 * W <= steps; i += 2 * W) {
      block(i);
      block(i + W);
    }
    for (; i < steps; ++i) p[i] = at(i);
  });
  return finish(t, options, "linspace");
}

Tensor eye(std::int64_t n, std::int64_t m, TensorOptions options) {
  if (m == -1) m = n;
  if (n < 0 || m < 0) {
    throw ValueError("eye: sizes must be non-negative, got n = " + str(n) + ", m = " + str(m) + ".");
  }
  Tensor t = detail::make_tensor({n, m}, options.dtype);
  detail::copy_into(t, detail::scalar_to_tensor(0, options.dtype));
  // The diagonal is one long stride of m + 1 elements.
  const std::int64_t k = std::min(n, m);
  if (k > 0) {
    detail::copy_into(detail::make_view(t, {k}, {m + 1}, 0), detail::scalar_to_tensor(1, options.dtype));
  }
  return finish(t, options, "eye");
}

// ---- *_like: same shape (and strides when dense), dtype from `other` unless options say ----------
Tensor empty_like(const Tensor& other, TensorOptions options) {
  detail::check_defined(other, "empty_like");
  return finish(detail::empty_preserving_strides(other, options.dtype), options, "empty_like");
}
Tensor zeros_like(const Tensor& other, TensorOptions options) {
  Tensor t = empty_like(other, TensorOptions{.dtype = options.dtype});
  detail::copy_into(t, detail::scalar_to_tensor(0, options.dtype));
  return finish(t, options, "zeros_like");
}
Tensor ones_like(const Tensor& other, TensorOptions options) {
  Tensor t = empty_like(other, TensorOptions{.dtype = options.dtype});
  detail::copy_into(t, detail::scalar_to_tensor(1, options.dtype));
  return finish(t, options, "ones_like");
}
Tensor empty_like(const Tensor& other) {
  detail::check_defined(other, "empty_like");
  return empty_like(other, {.dtype = other.dtype(), .device = other.device()});
}
Tensor zeros_like(const Tensor& other) {
  detail::check_defined(other, "zeros_like");
  return zeros_like(other, {.dtype = other.dtype(), .device = other.device()});
}
Tensor ones_like(const Tensor& other) {
  detail::check_defined(other, "ones_like");
  return ones_like(other, {.dtype = other.dtype(), .device = other.device()});
}
Tensor full_like(const Tensor& other, Scalar value) {
  detail::check_defined(other, "full_like");
  const Tensor v = detail::checked_scalar_to_tensor(value, other.dtype(), "full_like");
  Tensor t = empty_like(other);
  detail::copy_into(t, v);
  return t;
}

// ---- from_blob -----------------------------------------------------------------------------------
Tensor from_blob(void* data, const Shape& shape, DType dtype, const Strides& strides,
                 std::function<void(void*)> deleter) {
  if (data == nullptr && numel_of(shape) > 0) {
    throw ValueError("from_blob: data is a null pointer but shape " + shape_str(shape) + " needs " +
                     str(numel_of(shape)) + " elements.");
  }
  for (auto s : shape)
    if (s < 0) throw ValueError("from_blob: negative size in shape " + shape_str(shape) + ".");
  Strides st = strides.empty() ? contiguous_strides(shape) : strides;
  if (st.size() != shape.size()) {
    throw ShapeError("from_blob: " + str(static_cast<std::int64_t>(st.size())) + " strides " + shape_str(st) +
                     " for a " + str(static_cast<std::int64_t>(shape.size())) + "-d shape " + shape_str(shape) +
                     ". Hint: give one stride per dimension, or none for row-major.");
  }
  // The storage covers every element the strides can reach (strides are in elements).
  std::int64_t extent = numel_of(shape) == 0 ? 0 : 1;
  for (std::size_t i = 0; i < shape.size() && extent > 0; ++i) {
    if (st[i] < 0) throw ValueError("from_blob: negative strides " + shape_str(st) + " are not supported.");
    extent += (shape[i] - 1) * st[i];
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(data, extent * element_size(dtype), kCPU, std::move(deleter));
  impl->shape = shape;
  impl->strides = st;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

}  // namespace kindling
