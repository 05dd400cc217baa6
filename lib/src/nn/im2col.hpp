#pragma once
// Internal: im2col and its adjoint col2im, the copy that turns a convolution into one matrix product
// (conv2d.cpp: conv2d's forward and backward, and conv_transpose2d, whose forward is col2im). Each
// output position's receptive field becomes one column of cols [C·kH·kW, H'·W'].
#include <algorithm>
#include <cstdint>

#include "tensor/dnnl_conv.hpp"

namespace kindling::nn::functional::conv_columns {

// The sizes (tensor/dnnl_conv.hpp's Conv2dShape, which oneDNN's path takes as they are): input
// [n, c, h, w], weight [o, c/groups, kh, kw], strides, padding, dilation, output [n, o, oh, ow].
struct ConvGeom : kindling::detail::Conv2dShape {
  std::int64_t cg() const { return c / groups; }
  std::int64_t og() const { return o / groups; }
  std::int64_t k() const { return cg() * kh * kw; }  // rows of one group's cols
  std::int64_t l() const { return oh * ow; }          // columns of cols
};

// Stride 1 with the output as wide as the input (a 3x3 kernel with padding 1, "same" convolutions):
// row y of a kernel tap's columns is input row y + di shifted by dj, and output rows follow each other
// in memory like input rows do, so the whole tap is ONE contiguous copy, cols[p] = x[p + di·w + dj],
// plus fix-ups: the dj columns of each row that fall in the padding (the copy filled them with the
// neighbouring row's ends) and the rows above or below the image get 0. One copy per tap instead of
// one per output row: the CNN's rows are 28 and 14 floats, where the per-row calls were most of the
// time. `Tap` holds that geometry; the same holds for col2im.
struct Tap {
  std::int64_t y0, y1;  // output rows whose input row is inside the image
  std::int64_t lo, hi;  // output columns whose input column is inside the image
  std::int64_t off;     // input flat index - output flat index
  std::int64_t p0, p1;  // the flat range [p0, p1) of the copy: [y0·w, y1·w) clipped to the input
};

inline bool flat_taps(const ConvGeom& g) { return g.sh == 1 && g.sw == 1 && g.ow == g.w; }

inline Tap flat_tap(const ConvGeom& g, std::int64_t i, std::int64_t j) {
  Tap t{};
  const std::int64_t di = i * g.dh - g.ph, dj = j * g.dw - g.pw;
  t.y0 = std::clamp<std::int64_t>(-di, 0, g.oh);
  t.y1 = std::clamp<std::int64_t>(g.h - di, t.y0, g.oh);
  t.lo = std::clamp<std::int64_t>(-dj, 0, g.ow);
  t.hi = std::clamp<std::int64_t>(g.w - dj, t.lo, g.ow);
  t.off = di * g.w + dj;
  // The clipped-off ends are padding columns of the first and last rows (x + dj outside [0, w)).
  t.p0 = std::clamp(-t.off, t.y0 * g.w, t.y1 * g.w);
  t.p1 = std::clamp(g.h * g.w - t.off, t.p0, t.y1 * g.w);
  return t;
}

// Columns [0, lo) and [hi, ow) of rows [y0, y1) of a tap's row of cols := 0. Column by column, a
// strided store: a loop along a row (one or two floats on the CNN) becomes a memset call per row.
template <class T> void zero_padding_columns(T* row, const ConvGeom& g, const Tap& t) {
  auto column = [&](std::int64_t x) {
    for (std::int64_t y = t.y0; y < t.y1; ++y) row[y * g.ow + x] = T(0);
  };
  for (std::int64_t x = 0; x < t.lo; ++x) column(x);
  for (std::int64_t x = t.hi; x < g.ow; ++x) column(x);
}

// x_img: [C, H, W] → cols: [C·kH·kW, oh·ow], row r at cols + r·ld (ld ≥ oh·ow: the image's block of a
// batch's columns, see `batching` at the top of conv2d.cpp); positions in the padding read 0.
// `zeroed`: cols already holds 0 outside what the flat path copies (a zero-initialised buffer that only
// im2col wrote to since, with the same ld), so the flat path skips those fills -- on the CNN they were
// two small memset calls per tap and image, ~1/3 of im2col's time.
template <class T> void im2col(const T* x, const ConvGeom& g, T* cols, std::int64_t ld, bool zeroed) {
  if (flat_taps(g)) {
    for (std::int64_t i = 0; i < g.kh; ++i)
      for (std::int64_t j = 0; j < g.kw; ++j) {
        const Tap t = flat_tap(g, i, j);
        for (std::int64_t c = 0; c < g.c; ++c) {
          T* row = cols + ((c * g.kh + i) * g.kw + j) * ld;
          const T* src = x + c * g.h * g.w;
          if (!zeroed) std::fill(row, row + t.p0, T(0));
          std::copy(src + t.p0 + t.off, src + t.p1 + t.off, row + t.p0);
          if (!zeroed) std::fill(row + t.p1, row + g.l(), T(0));
          zero_padding_columns(row, g, t);
        }
      }
    return;
  }
  for (std::int64_t c = 0; c < g.c; ++c)
    for (std::int64_t i = 0; i < g.kh; ++i)
      for (std::int64_t j = 0; j < g.kw; ++j) {
        T* row = cols + ((c * g.kh + i) * g.kw + j) * ld;
        for (std::int64_t y = 0; y < g.oh; ++y) {
          const std::int64_t ih = y * g.sh - g.ph + i * g.dh;
          T* dst = row + y * g.ow;
          if (ih < 0 || ih >= g.h) {
            std::fill(dst, dst + g.ow, T(0));
            continue;
          }
          const T* src = x + (c * g.h + ih) * g.w;
          if (g.sw == 1) {
            // Stride 1: the columns inside the image are one contiguous span of the input row,
            // [lo, hi) here, with zeros (the padding) on either side: a copy, not a test per element.
            const std::int64_t shift = j * g.dw - g.pw;  // iw = xo + shift
            const std::int64_t lo = std::clamp<std::int64_t>(-shift, 0, g.ow);
            const std::int64_t hi = std::clamp<std::int64_t>(g.w - shift, lo, g.ow);
            std::fill(dst, dst + lo, T(0));
            if (hi > lo) std::copy(src + lo + shift, src + hi + shift, dst + lo);
            std::fill(dst + hi, dst + g.ow, T(0));
            continue;
          }
          for (std::int64_t xo = 0; xo < g.ow; ++xo) {
            const std::int64_t iw = xo * g.sw - g.pw + j * g.dw;
            dst[xo] = (iw >= 0 && iw < g.w) ? src[iw] : T(0);
          }
        }
      }
}

// The adjoint of im2col: dx_img [C, H, W] += each column entry at the position it was read from.
// `cols` (row r at cols + r·ld, as in im2col) is scratch: the flat path zeroes its padding entries.
template <class T> void col2im(T* cols, const ConvGeom& g, std::int64_t ld, T* dx) {
  if (flat_taps(g)) {
    // The flat form of the adjoint: dx[p + off] += cols[p] over the tap's range. The entries of the
    // padding columns would land on the neighbouring row's ends, so they are set to 0 first: adding
    // +0.0 leaves every dx value as it was (dx starts at +0.0 and a sum of floats is never -0.0 in
    // round-to-nearest unless every term is), so each dx element gets the same additions in the same
    // order (c, i, j) as the per-row loop.
    for (std::int64_t c = 0; c < g.c; ++c) {
      T* d = dx + c * g.h * g.w;
      for (std::int64_t i = 0; i < g.kh; ++i)
        for (std::int64_t j = 0; j < g.kw; ++j) {
          const Tap t = flat_tap(g, i, j);
          T* row = cols + ((c * g.kh + i) * g.kw + j) * ld;
          zero_padding_columns(row, g, t);
          T* __restrict dst = d + t.off;
          const T* __restrict src = row;
          for (std::int64_t p = t.p0; p < t.p1; ++p) dst[p] += src[p];
        }
    }
    return;
  }
  for (std::int64_t c = 0; c < g.c; ++c)
    for (std::int64_t i = 0; i < g.kh; ++i)
      for (std::int64_t j = 0; j < g.kw; ++j) {
        const T* row = cols + ((c * g.kh + i) * g.kw + j) * ld;
        for (std::int64_t y = 0; y < g.oh; ++y) {
          const std::int64_t ih = y * g.sh - g.ph + i * g.dh;
          if (ih < 0 || ih >= g.h) continue;
          T* dst = dx + (c * g.h + ih) * g.w;
          const T* src = row + y * g.ow;
          if (g.sw == 1) {  // the span im2col copied, added back (same order per element)
            const std::int64_t shift = j * g.dw - g.pw;
            const std::int64_t lo = std::clamp<std::int64_t>(-shift, 0, g.ow);
            const std::int64_t hi = std::clamp<std::int64_t>(g.w - shift, lo, g.ow);
            for (std::int64_t xo = lo; xo < hi; ++xo) dst[xo + shift] += src[xo];
            continue;
          }
          for (std::int64_t xo = 0; xo < g.ow; ++xo) {
            const std::int64_t iw = xo * g.sw - g.pw + j * g.dw;
            if (iw >= 0 && iw < g.w) dst[iw] += src[xo];
          }
        }
      }
}

}  // namespace kindling::nn::functional::conv_columns
