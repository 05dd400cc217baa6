// functional::max_pool2d with its backward node: the maximum of each window, and where it was (its
// gradient goes there alone). Average pooling is in avg_pooling.cpp; the window geometry both use
// is in pool_geom.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "nn/checks.hpp"
#include "nn/pool_geom.hpp"
#include "kindling/autograd/function.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional {

namespace {
using pooling::PoolGeom;
using pooling::make_geom;
using pooling::with_batch;

// ---- max --------------------------------------------------------------------------------------
template <class T> void max_forward(const T* x, const PoolGeom& g, T* out, std::int64_t* idx) {
  // The window taps inside the image, [first, last) per output row and per output column, computed
  // once: the loop below then has no bounds test per tap (ResNet's 3x3/2 pool on a 224x224 image's
  // [64, 112, 112] spent most of its time in them). The order of the taps (row i, then column j) and
  // the rule are the same.
  auto inside = [](std::int64_t start, std::int64_t step, std::int64_t taps, std::int64_t size) {
    std::int64_t first = 0;
    while (first < taps && start + first * step < 0) ++first;
    std::int64_t last = first;
    while (last < taps && start + last * step < size) ++last;
    return std::pair<std::int64_t, std::int64_t>{first, last};
  };
  std::vector<std::pair<std::int64_t, std::int64_t>> cols(static_cast<std::size_t>(g.ow));
  for (std::int64_t ox = 0; ox < g.ow; ++ox) cols[ox] = inside(ox * g.sw - g.pw, g.dw, g.kw, g.w);
  for (std::int64_t pl = 0; pl < g.planes; ++pl) {
    const T* xp = x + pl * g.h * g.w;
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      const auto [i0, i1] = inside(oy * g.sh - g.ph, g.dh, g.kh, g.h);
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        const auto [j0, j1] = cols[ox];
        T best = -std::numeric_limits<T>::infinity();
        std::int64_t best_i = -1;
        for (std::int64_t i = i0; i < i1; ++i) {
          const std::int64_t row = (oy * g.sh - g.ph + i * g.dh) * g.w + ox * g.sw - g.pw;
          for (std::int64_t j = j0; j < j1; ++j) {
            const std::int64_t at = row + j * g.dw;
            const T v = xp[at];
            // Like PyTorch's kernel: a NaN always takes over (so the *last* NaN of the window wins),
            // a number only when strictly bigger (so the first of tied maxima wins). Selects, not
            // branches: which tap wins is as good as random.
            const bool take = best_i < 0 || v > best || std::isnan(v);
            best = take ? v : best;
            best_i = take ? at : best_i;
          }
        }
        const std::int64_t o = (pl * g.oh + oy) * g.ow + ox;
        out[o] = best;
        idx[o] = best_i;
      }
    }
  }
}

// The CNN's pool -- 2x2 windows, stride 2, no padding, no dilation -- without the general loop's
// bounds checks and early exit: every window is the four values a b / c d, visited in the general
// loop's order, so it keeps its exact rule (PyTorch's): the last NaN wins, else the first strict
// maximum. Written with selects only; float32 rows go eight windows at a time through AVX2 where the
// build has it, the scalar loops do the rest and every other dtype.
//
// Where the max was is kept as a one-byte code per window, 0..3 for a, b, c, d (the flat index is
// 2·oy·w + 2·ox + (code & 1) + (code >> 1)·w), not PyTorch's int64 flat index: nothing outside this
// file reads the indices, and on the CNN's pools (6.4 MB and 3.2 MB of activations, beyond the caches)
// the forward and backward are bound by memory traffic, of which 8-byte indices were a third.
bool is_2x2(const PoolGeom& g) {
  return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0 && g.dh == 1 && g.dw == 1 &&
         g.oh == g.h / 2 && g.ow == g.w / 2;
}

#if defined(__AVX2__)
// Lanes [0, n) of 8 set (n may be <= 0 or >= 8).
inline __m256i first_lanes(std::int64_t n) {
  const int k = static_cast<int>(std::clamp<std::int64_t>(n, 0, 8));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The float32 row of windows eight at a time: the even and odd columns of the two rows are split into
// the four window values a b / c d (8 windows each), then the same select chain as the scalar loop --
// take v when v > best or v is NaN, in the order b, c, d. The last block of a row (the CNN's rows are
// 14 and 7 windows long) uses masked loads, which read only the row's own 2·n columns (a row of an
// odd-width plane is never read past its end), and a full store of 8 outputs that runs into the next
// output row -- which is written after this one -- unless it would pass `o_end`, the end of the
// output: masked stores (vmaskmovps) are slow on AMD's cores.
void max_row_2x2_avx2(const float* r0, const float* r1, std::int64_t ow, float* o, std::uint8_t* code,
                      const float* o_end) {
  // Even columns (a, c) and odd columns (b, d) of 2·n consecutive floats (n <= 8), in order:
  // shuffle_ps works within 128-bit lanes, the 64-bit permute puts the lanes' halves back in sequence.
  auto split = [](const float* p, std::int64_t n, __m256& even, __m256& odd) {
    __m256 lo, hi;
    if (n == 8) {
      lo = _mm256_loadu_ps(p);
      hi = _mm256_loadu_ps(p + 8);
    } else {
      lo = _mm256_maskload_ps(p, first_lanes(2 * n));
      hi = _mm256_maskload_ps(p + 8, first_lanes(2 * n - 8));
    }
    even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0x88)), 0xD8));
    odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0xDD)), 0xD8));
  };
  const __m256 code_b = _mm256_castsi256_ps(_mm256_set1_epi32(1)), code_c = _mm256_castsi256_ps(_mm256_set1_epi32(2)),
               code_d = _mm256_castsi256_ps(_mm256_set1_epi32(3));
  // byte 0 of each 32-bit lane to the low 4 bytes of its 128-bit half, then the two halves together
  const __m256i bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                         0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i halves = _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1);
  for (std::int64_t ox = 0; ox < ow; ox += 8) {
    const std::int64_t n = std::min<std::int64_t>(8, ow - ox);
    __m256 a, b, c, d;
    split(r0 + 2 * ox, n, a, b);
    split(r1 + 2 * ox, n, c, d);
    __m256 best = a, at = _mm256_setzero_ps();
    auto step = [&](__m256 v, __m256 k) {
      const __m256 take = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      best = _mm256_blendv_ps(best, v, take);
      at = _mm256_blendv_ps(at, k, take);
    };
    step(b, code_b);
    step(c, code_c);
    step(d, code_d);
    const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_castps_si256(at), bytes), halves);
    const auto eight = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm256_castsi256_si128(packed)));
    if (n == 8 || o + ox + 8 <= o_end) _mm256_storeu_ps(o + ox, best);
    else _mm256_maskstore_ps(o + ox, first_lanes(n), best);
    std::memcpy(code + ox, &eight, static_cast<std::size_t>(n));  // little-endian: window k is byte k
  }
}

// The backward's row: each window's gradient v = 0 + g goes to the position its code names, 0 to the
// other three; written as two interleaved rows (a b a b ... / c d c d ...), 8 windows at a time. The
// last block is stored whole, like the forward's, running into the next row (r0's into r1, r1's into
// the next row pair, both written later; the caller fills an odd last column after this) unless that
// would pass `dx_end`.
void max_row_2x2_backward_avx2(const float* go, const std::uint8_t* code, std::int64_t ow, float* r0, float* r1,
                               const float* dx_end) {
  // One input row at a time (r0 from codes 0 and 1, then r1 from 2 and 3): r0's last store runs into
  // r1's first columns, so r1 must be written after all of r0.
  auto row = [&](float* dst, int left_code) {
    const __m256i left = _mm256_set1_epi32(left_code), right = _mm256_set1_epi32(left_code + 1);
    for (std::int64_t ox = 0; ox < ow; ox += 8) {
      const std::int64_t n = std::min<std::int64_t>(8, ow - ox);
      // The codes of the block as one integer, little-endian. (A partial block is assembled in a
      // register: a memcpy of n bytes to the stack and an 8-byte load back cannot be store-forwarded,
      // and that stall was a third of this loop's time.)
      std::uint64_t eight = 0;
      if (n == 8) {
        std::memcpy(&eight, code + ox, 8);
      } else {
        for (std::int64_t i = 0; i < n; ++i) eight |= std::uint64_t(code[ox + i]) << (8 * i);
      }
      const __m256i k = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(eight)));
      const __m256 g = n == 8 ? _mm256_loadu_ps(go + ox) : _mm256_maskload_ps(go + ox, first_lanes(n));
      const __m256 v = _mm256_add_ps(_mm256_setzero_ps(), g);  // 0 + g, as the scalar loop (-0.0 -> 0.0)
      const __m256 l = _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(k, left)), v);
      const __m256 r = _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(k, right)), v);
      // dst[2i] = l[i], dst[2i + 1] = r[i]
      const __m256 lo = _mm256_unpacklo_ps(l, r), hi = _mm256_unpackhi_ps(l, r);
      const __m256 first = _mm256_permute2f128_ps(lo, hi, 0x20), second = _mm256_permute2f128_ps(lo, hi, 0x31);
      float* d = dst + 2 * ox;
      if (n == 8 || d + 16 <= dx_end) {
        _mm256_storeu_ps(d, first);
        _mm256_storeu_ps(d + 8, second);
      } else {
        _mm256_maskstore_ps(d, first_lanes(2 * n), first);
        _mm256_maskstore_ps(d + 8, first_lanes(2 * n - 8), second);
      }
    }
  };
  row(r0, 0);
  row(r1, 2);
}
#endif

template <class T> void max_forward_2x2(const T* x, const PoolGeom& g, T* __restrict out, std::uint8_t* __restrict code) {
  for (std::int64_t pl = 0; pl < g.planes; ++pl)
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      const T* r0 = x + (pl * g.h + 2 * oy) * g.w;  // the window's two input rows
      const T* r1 = r0 + g.w;
      T* o = out + (pl * g.oh + oy) * g.ow;
      std::uint8_t* co = code + (pl * g.oh + oy) * g.ow;
#if defined(__AVX2__)
      if constexpr (std::is_same_v<T, float>) {
        max_row_2x2_avx2(r0, r1, g.ow, o, co, out + g.planes * g.oh * g.ow);
        continue;
      }
#endif
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        const T v[4] = {r0[2 * ox], r0[2 * ox + 1], r1[2 * ox], r1[2 * ox + 1]};
        T best = v[0];
        std::uint8_t bk = 0;
        for (std::uint8_t k = 1; k < 4; ++k) {
          const bool take = v[k] > best || v[k] != v[k];
          best = take ? v[k] : best;
          bk = take ? k : bk;
        }
        o[ox] = best;
        co[ox] = bk;
      }
    }
}

// Every input position is in at most one window, so each is written once -- g where it won, else 0 --
// with no zero-fill first; an odd last row or column (in no window) gets 0. (T(0) + g, not g: the
// same value the general path's 0 += g gives, -0.0 included.)
template <class T> void max_backward_2x2(const T* go, const std::uint8_t* code, const PoolGeom& g, T* dx) {
  for (std::int64_t pl = 0; pl < g.planes; ++pl) {
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      T* r0 = dx + (pl * g.h + 2 * oy) * g.w;
      T* r1 = r0 + g.w;
      const T* go_row = go + (pl * g.oh + oy) * g.ow;
      const std::uint8_t* co = code + (pl * g.oh + oy) * g.ow;
      bool done = false;
#if defined(__AVX2__)
      if constexpr (std::is_same_v<T, float>) {
        max_row_2x2_backward_avx2(go_row, co, g.ow, r0, r1, dx + g.planes * g.h * g.w);
        done = true;
      }
#endif
      for (std::int64_t ox = 0; !done && ox < g.ow; ++ox) {
        const T v = T(0) + go_row[ox];
        const std::uint8_t k = co[ox];
        r0[2 * ox] = k == 0 ? v : T(0);
        r0[2 * ox + 1] = k == 1 ? v : T(0);
        r1[2 * ox] = k == 2 ? v : T(0);
        r1[2 * ox + 1] = k == 3 ? v : T(0);
      }
      if (g.w % 2 != 0) r0[g.w - 1] = r1[g.w - 1] = T(0);
    }
    if (g.h % 2 != 0) std::fill_n(dx + (pl * g.h + g.h - 1) * g.w, g.w, T(0));
  }
}

// Without a backward to route (inference: no gradient recorded), only the maxima: separably, each
// input row's horizontal window maxima first (`rows`, [h, ow] per plane), then the vertical maxima
// of those rows. The max of a window is the same number whatever order its taps are visited in (a
// NaN anywhere in it gives NaN, as in PyTorch); where it was is what needs the order, and nobody asks.
// Each inner loop runs over output columns with no bounds test and vectorises: ResNet-18's 3x3/2 pool
// at 224x224 took ~3x less time than the general loop above (perf, Zen 3).
template <class T> void max_forward_values(const T* x, const PoolGeom& g, T* out) {
  constexpr T lowest = -std::numeric_limits<T>::infinity();
  std::vector<T> rows(static_cast<std::size_t>(g.h * g.ow));
  // Output columns [lo, hi) whose tap j is inside the image: 0 <= ox·sw - pw + j·dw < w.
  std::vector<std::pair<std::int64_t, std::int64_t>> span(static_cast<std::size_t>(g.kw));
  for (std::int64_t j = 0; j < g.kw; ++j) {
    std::int64_t lo = 0, hi = 0;
    while (lo < g.ow && lo * g.sw - g.pw + j * g.dw < 0) ++lo;
    hi = lo;
    while (hi < g.ow && hi * g.sw - g.pw + j * g.dw < g.w) ++hi;
    span[static_cast<std::size_t>(j)] = {lo, hi};
  }
  for (std::int64_t pl = 0; pl < g.planes; ++pl) {
    const T* xp = x + pl * g.h * g.w;
    for (std::int64_t y = 0; y < g.h; ++y) {
      T* r = rows.data() + y * g.ow;
      std::fill(r, r + g.ow, lowest);
      for (std::int64_t j = 0; j < g.kw; ++j) {
        const auto [lo, hi] = span[static_cast<std::size_t>(j)];
        const T* src = xp + y * g.w - g.pw + j * g.dw;  // src[ox·sw]: tap j of window ox
        for (std::int64_t ox = lo; ox < hi; ++ox) {
          const T v = src[ox * g.sw];
          r[ox] = (v > r[ox] || v != v) ? v : r[ox];
        }
      }
    }
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      T* o = out + (pl * g.oh + oy) * g.ow;
      std::fill(o, o + g.ow, lowest);
      for (std::int64_t i = 0; i < g.kh; ++i) {
        const std::int64_t y = oy * g.sh - g.ph + i * g.dh;
        if (y < 0 || y >= g.h) continue;
        const T* r = rows.data() + y * g.ow;
        for (std::int64_t ox = 0; ox < g.ow; ++ox) o[ox] = (r[ox] > o[ox] || r[ox] != r[ox]) ? r[ox] : o[ox];
      }
    }
  }
}

// max_pool2d: out = the max of each window, idx = where it was      dx[idx] += g (one winner per window)
struct MaxPool2d : autograd::Function<MaxPool2d> {
  static constexpr const char* name = "MaxPool2DWithIndicesBackward0";
  Shape in_shape;
  DType dtype = kFloat32;
  PoolGeom g{};

  Tensor forward(autograd::Context& ctx, const Tensor& x4, const PoolGeom& geom) {
    g = geom;
    in_shape = x4.shape();
    dtype = x4.dtype();
    const Tensor x = kindling::detail::contiguous_copy(x4);
    const Shape out_shape{x.size(0), x.size(1), g.oh, g.ow};
    Tensor out = kindling::detail::make_tensor(out_shape, x.dtype(), x.device());
    if (!ctx.needs_input_grad(0) && !is_2x2(g)) {
      // No gradient will come back through this node: the maxima alone.
      kindling::detail::dispatch_floating(x.dtype(), "max_pool2d", [&](auto tag) {
        using T = typename decltype(tag)::type;
        max_forward_values<T>(x.data_ptr<T>(), g, out.data_ptr<T>());
      });
      return out;
    }
    // [N, C, oh, ow]: where the max was -- uint8 window codes for 2x2 windows (max_forward_2x2),
    // else int64 flat positions inside the [H, W] plane (PyTorch's indices)
    Tensor idx = kindling::detail::make_tensor(out_shape, is_2x2(g) ? kUInt8 : kInt64, x.device());
    kindling::detail::dispatch_floating(x.dtype(), "max_pool2d", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (is_2x2(g)) max_forward_2x2<T>(x.data_ptr<T>(), g, out.data_ptr<T>(), idx.data_ptr<std::uint8_t>());
      else max_forward<T>(x.data_ptr<T>(), g, out.data_ptr<T>(), idx.data_ptr<std::int64_t>());
    });
    ctx.save_for_backward({idx});
    return out;
  }

  // The winner of each window as an int64 position in its [H, W] plane ([planes, oh·ow]; -1 where
  // no element won), whichever form the forward kept.
  Tensor flat_positions(const Tensor& idx) const {
    const std::int64_t per_plane = g.oh * g.ow;
    Tensor pos = kindling::detail::make_tensor({g.planes, per_plane}, kInt64);
    std::int64_t* pp = pos.data_ptr<std::int64_t>();
    const Tensor ic = kindling::detail::contiguous_copy(idx);
    for (std::int64_t k = 0, n = g.planes * per_plane; k < n; ++k) {
      if (!is_2x2(g)) {
        pp[k] = ic.data_ptr<std::int64_t>()[k];
        continue;
      }
      const std::int64_t o = k % per_plane, oy = o / g.ow, ox = o % g.ow, code = ic.data_ptr<std::uint8_t>()[k];
      pp[k] = (2 * oy + code / 2) * g.w + 2 * ox + code % 2;
    }
    return pos;
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Tensor idx = ctx.saved(0);
    if (kindling::detail::grad_mode_enabled()) {
      // create_graph: each output's gradient placed at its window's winner with a recorded
      // scatter_add, whose own backward (a gather at the same positions) makes it differentiable
      // again; the positions are constants, so the derivative w.r.t. the input is 0, as in PyTorch.
      const Tensor pos = flat_positions(idx.to(kCPU)).to(grads[0].device());
      const Tensor valid = pos >= 0;
      const Tensor g2 = grads[0].reshape({g.planes, g.oh * g.ow});
      return {zeros({g.planes, g.h * g.w}, {.dtype = g2.dtype()})
                  .scatter_add(1, kindling::where(valid, pos, 0), kindling::where(valid, g2, 0.0))
                  .reshape(in_shape)};
    }
    const Tensor go = kindling::detail::contiguous_copy(grads[0].to(dtype));
    if (is_2x2(g)) {
      Tensor dx = kindling::detail::make_tensor(in_shape, dtype, go.device());
      kindling::detail::dispatch_floating(dtype, "max_pool2d backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        max_backward_2x2<T>(go.data_ptr<T>(), idx.data_ptr<std::uint8_t>(), g, dx.data_ptr<T>());
      });
      return {dx};
    }
    Tensor dx = zeros(in_shape, {.dtype = dtype});
    kindling::detail::dispatch_floating(dtype, "max_pool2d backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* gp = go.data_ptr<T>();
      const std::int64_t* ip = idx.data_ptr<std::int64_t>();
      T* d = dx.data_ptr<T>();
      const std::int64_t per_plane = g.oh * g.ow;
      // Each output's gradient goes to the one input position that won the max.
      for (std::int64_t pl = 0; pl < g.planes; ++pl)
        for (std::int64_t o = 0; o < per_plane; ++o) {
          const std::int64_t k = pl * per_plane + o;
          if (ip[k] >= 0) d[pl * g.h * g.w + ip[k]] += gp[k];
        }
    });
    return {dx};
  }
};

}  // namespace

Tensor max_pool2d(const Tensor& input, IntPair kernel_size, IntPair stride, IntPair padding, IntPair dilation,
                  bool ceil_mode) {
  if (detail::computes_in_float32(input))  // the max of bfloat16 values is one of them: exact either way
    return max_pool2d(detail::widened(input), kernel_size, stride, padding, dilation, ceil_mode).to(input.dtype());
  return with_batch(input, [&](const Tensor& x4) {
    const PoolGeom g = make_geom("max_pool2d", x4, kernel_size, stride, padding, dilation, ceil_mode);
    return MaxPool2d::apply(x4, g);
  });
}

}  // namespace kindling::nn::functional
