#pragma once
// Internal: a float32 2-D convolution's forward on oneDNN's convolution primitive (dnnl_conv.cpp),
// for the nn layer's conv2d (lib/src/nn/conv2d.cpp), which keeps its own im2col + GEMM path for
// every case this one declines. Here because oneDNN is linked into the tensor layer only.
#include <cstdint>

namespace kindling::detail {

/// A convolution's sizes: input [n, c, h, w], weight [o, c / groups, kh, kw], output [n, o, oh, ow]
/// (conv2d.cpp's ConvGeom is this plus the derived sizes im2col needs).
struct Conv2dShape {
  std::int64_t n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow;
};

/// out = conv(x, w) + b (b may be null), every tensor float32, contiguous, NCHW. Returns false,
/// having written nothing, when oneDNN is not built in or declines the shape; the caller then
/// computes it itself.
bool dnnl_conv2d_forward(const float* x, const float* w, const float* b, float* out, const Conv2dShape& s);

}  // namespace kindling::detail
