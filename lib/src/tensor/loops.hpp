#pragma once
// Strided iteration: the heart of every elementwise op and of copy/contiguous.
//
// An op over N operands (output first) sees each operand as (base pointer, byte strides over the
// *output's* shape). Broadcast dimensions have stride 0, transposed views have permuted strides —
// the loop does not care. Dimensions that are laid out back to back in every operand are merged
// ("coalesced"), so a contiguous tensor of any shape becomes one long row and the innermost loop is
// a plain pointer walk that the compiler vectorises.
#include <array>
#include <cstdint>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::detail {

/// Up to kMaxLoopDims dimensions are iterated without touching the heap: the loops run once per op,
/// and for small tensors (an autograd chain of tiny ops) malloc/free used to cost more than the math.
inline constexpr std::size_t kMaxLoopDims = 64;

/// A short vector of int64 kept inline (falls back to the heap past 8 entries), for per-op strides.
class DimVec {
 public:
  DimVec() = default;
  explicit DimVec(std::size_t n, std::int64_t value = 0) {
    for (std::size_t i = 0; i < n; ++i) push_back(value);
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::int64_t* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const std::int64_t* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  std::int64_t& operator[](std::size_t i) { return data()[i]; }
  std::int64_t operator[](std::size_t i) const { return data()[i]; }
  void push_back(std::int64_t v) {
    if (size_ < inline_.size() && heap_.empty()) {
      inline_[size_++] = v;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_.begin(), inline_.begin() + size_);
    heap_.push_back(v);
    ++size_;
  }

 private:
  std::array<std::int64_t, 8> inline_{};
  std::vector<std::int64_t> heap_;
  std::size_t size_ = 0;
};

/// Strides (in bytes) of `t` viewed as broadcast to `out_shape`: 0 along dims it is expanded in.
DimVec broadcast_byte_strides(const Tensor& t, const Shape& out_shape);

/// Throws ValueError when a tensor has more dimensions than the loops can iterate.
void check_loop_dims(std::size_t ndim);

/// Calls inner(ptrs, strides, n) once per innermost row of `shape`: ptrs[k] is operand k's address of
/// the row's first element, strides[k] its byte step along the row, n the row's length.
/// `byte_strides[k][d]` is operand k's byte stride along dimension d of `shape`.
// [snippet: for-each-row]
template <std::size_t N, class Strides, class Inner>
void for_each_row(const Shape& shape, std::array<char*, N> base,
                  const std::array<Strides, N>& byte_strides, Inner&& inner) {
  const std::size_t ndim = shape.size();
  for (auto s : shape)
    if (s == 0) return;
  check_loop_dims(ndim);
  // Coalesce: walk from the innermost dim outwards, merging dim d into the current
  // group when every operand's strides satisfy
  // stride[d] == stride[inner] * size[inner].
  std::array<std::int64_t, kMaxLoopDims> sizes;
  std::array<std::array<std::int64_t, N>, kMaxLoopDims> strides;
  std::size_t groups = 0;
  for (std::size_t i = ndim; i-- > 0;) {
    if (shape[i] == 1) continue;
    std::array<std::int64_t, N> st;
    for (std::size_t k = 0; k < N; ++k) st[k] = byte_strides[k][i];
    if (groups > 0) {
      bool mergeable = true;
      for (std::size_t k = 0; k < N; ++k)
        mergeable &= st[k] == strides[groups - 1][k] * sizes[groups - 1];
      if (mergeable) {
        sizes[groups - 1] *= shape[i];
        continue;
      }
    }
    sizes[groups] = shape[i];
    strides[groups] = st;
    ++groups;
  }
  if (groups == 0) {  // a single element
    sizes[0] = 1;
    strides[0] = {};
    groups = 1;
  }
  // sizes[0] is the innermost (row) dimension; an odometer counts over the rest.
  const std::size_t outer = groups - 1;
  std::array<std::int64_t, kMaxLoopDims> counter{};
  std::array<char*, N> ptrs = base;
  for (;;) {
    inner(ptrs, strides[0], sizes[0]);
    std::size_t d = 0;
    for (; d < outer; ++d) {
      for (std::size_t k = 0; k < N; ++k) ptrs[k] += strides[d + 1][k];
      if (++counter[d] < sizes[d + 1]) break;
      for (std::size_t k = 0; k < N; ++k) ptrs[k] -= strides[d + 1][k] * sizes[d + 1];
      counter[d] = 0;
    }
    if (d == outer) return;
  }
}
// [end]

/// out[i] = f(a[i]) over a (broadcast to out's shape). Types: A in, O out.
template <class A, class O, class F>
void unary_loop(const Tensor& out, const Tensor& a, F f) {
  if (a.shape() == out.shape() && out.is_contiguous() && a.is_contiguous()) {  // one flat loop
    O* o = static_cast<O*>(out.raw_data_ptr());
    const A* x = static_cast<const A*>(a.raw_data_ptr());
    for (std::int64_t i = 0, n = out.numel(); i < n; ++i) o[i] = f(x[i]);
    return;
  }
  std::array<DimVec, 2> st{broadcast_byte_strides(out, out.shape()),
                                              broadcast_byte_strides(a, out.shape())};
  for_each_row<2>(out.shape(), {static_cast<char*>(out.raw_data_ptr()), static_cast<char*>(a.raw_data_ptr())},
                  st, [&](std::array<char*, 2> p, const std::array<std::int64_t, 2>& s, std::int64_t n) {
                    O* o = reinterpret_cast<O*>(p[0]);
                    const A* x = reinterpret_cast<const A*>(p[1]);
                    if (s[0] == sizeof(O) && s[1] == sizeof(A)) {  // contiguous: vectorisable
                      for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
                    } else if (s[0] == sizeof(O) && s[1] == 0) {    // broadcast scalar
                      const O v = f(*x);
                      for (std::int64_t i = 0; i < n; ++i) o[i] = v;
                    } else {
                      for (std::int64_t i = 0; i < n; ++i)
                        *reinterpret_cast<O*>(p[0] + i * s[0]) =
                            f(*reinterpret_cast<const A*>(p[1] + i * s[1]));
                    }
                  });
}

/// out[i] = f(a[i], b[i]) with a and b broadcast to out's shape.
template <class A, class B, class O, class F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  // The commonest case by far — same shapes, all contiguous, or a 0-d scalar on one side — needs
  // no strides at all: one flat loop (an autograd chain of tiny ops spends its time here otherwise).
  const std::int64_t numel = out.numel();
  if (out.is_contiguous() && (a.dim() == 0 || (a.shape() == out.shape() && a.is_contiguous())) &&
      (b.dim() == 0 || (b.shape() == out.shape() && b.is_contiguous()))) {
    O* __restrict o = static_cast<O*>(out.raw_data_ptr());
    const A* x = static_cast<const A*>(a.raw_data_ptr());
    const B* y = static_cast<const B*>(b.raw_data_ptr());
    if (a.dim() != 0 && b.dim() != 0) {
      for (std::int64_t i = 0; i < numel; ++i) o[i] = f(x[i], y[i]);
    } else if (a.dim() != 0) {
      const B yv = *y;
      for (std::int64_t i = 0; i < numel; ++i) o[i] = f(x[i], yv);
    } else if (b.dim() != 0) {
      const A xv = *x;
      for (std::int64_t i = 0; i < numel; ++i) o[i] = f(xv, y[i]);
    } else {
      const O v = numel > 0 ? f(*x, *y) : O{};
      for (std::int64_t i = 0; i < numel; ++i) o[i] = v;
    }
    return;
  }
  std::array<DimVec, 3> st{broadcast_byte_strides(out, out.shape()),
                                              broadcast_byte_strides(a, out.shape()),
                                              broadcast_byte_strides(b, out.shape())};
  for_each_row<3>(
      out.shape(),
      {static_cast<char*>(out.raw_data_ptr()), static_cast<char*>(a.raw_data_ptr()),
       static_cast<char*>(b.raw_data_ptr())},
      st, [&](std::array<char*, 3> p, const std::array<std::int64_t, 3>& s, std::int64_t n) {
        O* __restrict o = reinterpret_cast<O*>(p[0]);
        const A* x = reinterpret_cast<const A*>(p[1]);
        const B* y = reinterpret_cast<const B*>(p[2]);
        // The three shapes that cover nearly all real work get their own vectorisable loop.
        if (s[0] == sizeof(O) && s[1] == sizeof(A) && s[2] == sizeof(B)) {
          for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
        } else if (s[0] == sizeof(O) && s[1] == sizeof(A) && s[2] == 0) {
          const B yv = *y;
          for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
        } else if (s[0] == sizeof(O) && s[1] == 0 && s[2] == sizeof(B)) {
          const A xv = *x;
          for (std::int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
        } else {
          for (std::int64_t i = 0; i < n; ++i)
            *reinterpret_cast<O*>(p[0] + i * s[0]) = f(*reinterpret_cast<const A*>(p[1] + i * s[1]),
                                                       *reinterpret_cast<const B*>(p[2] + i * s[2]));
        }
      });
}

}  // namespace kindling::detail
