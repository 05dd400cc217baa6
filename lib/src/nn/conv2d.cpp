// functional::conv2d and its backward (ConvolutionBackward0), the GEMM way:
//
//   im2col: each output position's receptive field (C/groups·kH·kW numbers) becomes one column of a
//           matrix cols [C·kH·kW, H'·W'];  then  out[O, H'·W'] = weight[O, C·kH·kW] · cols.
//   backward: grad_weight += grad_out · colsᵀ,  grad_cols = weightᵀ · grad_out, and col2im adds each
//           column back onto the input positions it came from (positions overlap: they accumulate).
//   batching: the columns of several small images side by side, cols [C·kH·kW, B·H'·W'], so one GEMM
//           serves B images. Deep in a network H'·W' is small (ResNet-18 on 64x64 images: 4 columns in layer4)
//           and a GEMM that thin runs at a fraction of the rate of one with thousands of columns.
#include <algorithm>
#include <cstring>
#include <memory>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/autocast_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "nn/blas.hpp"
#include "nn/checks.hpp"
#include "nn/conv_padding.hpp"
#include "nn/im2col.hpp"
#include "kindling/autograd/function.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/dnnl_conv.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::functional {

namespace {

using conv_columns::ConvGeom;
using conv_columns::col2im;
using conv_columns::flat_taps;
using conv_columns::im2col;

// How many images share one GEMM: only small ones, up to kBatchSmall output positions each, as many
// as fit in kBatchColumns columns (B·H'·W'), at most all of them, and never a cols buffer above
// ~kBatchBytes. Larger images go one at a time, as they always did: their GEMM is wide enough already,
// and their columns stay in the cache between im2col and the GEMM (batching the CNN's 28x28 and 14x14
// outputs cost P6 10-20 % of its speed). Measured on ResNet-18's training step (64x64, batch 16, 1
// thread, Zen 5), whose layer2-4 outputs are 8x8, 4x4 and 2x2: ~0.24 s one image at a time, ~0.14 s.
constexpr std::int64_t kBatchSmall = 128;
constexpr std::int64_t kBatchColumns = 1024;
constexpr std::int64_t kBatchBytes = 16 << 20;
template <class T> std::int64_t images_per_gemm(const ConvGeom& g) {
  const std::int64_t l = std::max<std::int64_t>(g.l(), 1);
  if (l > kBatchSmall) return 1;
  // One image's cols; at least 1, so that a convolution of 0 input channels (no columns) does not divide by 0.
  const std::int64_t image_bytes = std::max<std::int64_t>(g.c * g.kh * g.kw * l * std::int64_t(sizeof(T)), 1);
  const std::int64_t by_bytes = kBatchBytes / image_bytes;
  return std::clamp<std::int64_t>(std::min(kBatchColumns / l, by_bytes), 1, std::max<std::int64_t>(g.n, 1));
}

// A scratch buffer of n values, zeros only where asked: the flat im2col relies on them (`zeroed`);
// everything else here is written before it is read, and zeroing megabytes per call showed (~5 % of
// ResNet-18's training step in memset).
template <class T> struct Scratch {
  std::unique_ptr<T[]> p;
  Scratch(std::int64_t n, bool zeros = false)
      : p(zeros ? std::make_unique<T[]>(static_cast<std::size_t>(n))
                : std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(n))) {}
  T* data() const { return p.get(); }
};

// Where oneDNN's direct convolution takes over the float32 forward: when one image's column matrix
// (K·H'·W' floats) is 1 MB or more, it no longer stays in the L2 cache between im2col and the GEMM,
// and copying each input value kh·kw times costs a trip through memory. ResNet-18 at 224x224 (layer1:
// 576 x 3136 columns, 7 MB an image): its forward took ~12 % less time (P8, Zen 3). Below, im2col +
// GEMM stays: on the CNN's convolutions (28x28 and 14x14, columns of 28 kB and 113 kB) oneDNN's
// forward, with its reorders to and from its blocked layout, made P6's training step ~10 % slower.
constexpr std::int64_t kDirectColumnBytes = 1 << 20;

// out [N, O, L] = W · cols over B images at a time: cols [K·groups, B·L] (image b's columns at b·L),
// the product [O, B·L] then scattered to each image's [O, L] (for B = 1 the GEMM writes out directly).
// The bias is added to each chunk's output while it is still in the cache: a pass over the whole
// output afterwards read it back from memory (the CNN's conv1 output is 6.4 MB).
template <class T> void conv_forward(const T* x, const T* w, const T* b, const ConvGeom& g, T* out) {
  const std::int64_t B = images_per_gemm<T>(g), L = g.l(), ld = B * L;
  const Scratch<T> cols(g.c * g.kh * g.kw * ld, flat_taps(g));
  const Scratch<T> prod(B > 1 ? g.o * ld : 0);
  for (std::int64_t n0 = 0; n0 < g.n; n0 += B) {
    const std::int64_t nb = std::min(B, g.n - n0);
    for (std::int64_t b_ = 0; b_ < nb; ++b_)  // `cols` starts as zeros, and every chunk has the same ld
      im2col(x + (n0 + b_) * g.c * g.h * g.w, g, cols.data() + b_ * L, ld, true);
    T* dst = B > 1 ? prod.data() : out + n0 * g.o * L;
    for (std::int64_t grp = 0; grp < g.groups; ++grp) {
      // prod_g [og, nb·L] = w_g [og, K] · cols_g [K, nb·L]
      detail::gemm(false, false, int(g.og()), int(nb * L), int(g.k()), T(1), w + grp * g.og() * g.k(), int(g.k()),
                   cols.data() + grp * g.k() * ld, int(ld), T(0), dst + grp * g.og() * ld, int(ld));
    }
    if (B > 1)  // [O, nb, L] -> [nb, O, L]
      for (std::int64_t b_ = 0; b_ < nb; ++b_)
        for (std::int64_t o = 0; o < g.o; ++o)
          std::copy_n(prod.data() + o * ld + b_ * L, L, out + ((n0 + b_) * g.o + o) * L);
    if (b)
      for (std::int64_t n = n0; n < n0 + nb; ++n)
        for (std::int64_t o = 0; o < g.o; ++o) {
          T* row = out + (n * g.o + o) * L;
          for (std::int64_t p = 0; p < L; ++p) row[p] += b[o];
        }
  }
}

// db[o] += the sum of gout's row (n, o), for the nb images of gout [nb, O, L]: eight running sums per
// row (one sum would wait on the previous add for every element).
template <class T> void add_bias_grad(const T* gout, std::int64_t nb, std::int64_t o_count, std::int64_t L, T* db) {
  for (std::int64_t n = 0; n < nb; ++n)
    for (std::int64_t o = 0; o < o_count; ++o) {
      const T* row = gout + (n * o_count + o) * L;
      T acc[8] = {};
      std::int64_t p = 0;
      for (; p + 8 <= L; p += 8)
        for (int k = 0; k < 8; ++k) acc[k] += row[p + k];
      T s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
      for (; p < L; ++p) s += row[p];
      db[o] += s;
    }
}

// The same B images at a time: gout gathered to [O, nb·L] (as the forward's product was), then
// dw_g += gout_g · cols_gᵀ over all nb·L columns at once, and dcols_g = w_gᵀ · gout_g, col2im per image.
// Everything a chunk needs is done while its part of gout is in the cache: the bias gradient's row
// sums, and dx's zeros just before col2im adds into them (a pass over the whole of dx or gout
// afterwards, or a zero-filled dx first, went to memory and back). dx: uninitialised on entry.
template <class T>
void conv_backward(const T* x, const T* w, const T* gout, const ConvGeom& g, T* dx, T* dw, T* db) {
  const std::int64_t B = images_per_gemm<T>(g), L = g.l(), ld = B * L;
  const std::int64_t cols_size = g.c * g.kh * g.kw * ld;
  // dcols needs no zeros: the GEMM (beta = 0) writes every column col2im reads.
  const Scratch<T> cols(dw ? cols_size : 0, flat_taps(g)), dcols(dx ? cols_size : 0);
  const Scratch<T> gathered(B > 1 ? g.o * ld : 0);
  for (std::int64_t n0 = 0; n0 < g.n; n0 += B) {
    const std::int64_t nb = std::min(B, g.n - n0);
    if (db) add_bias_grad(gout + n0 * g.o * L, nb, g.o, L, db);
    const T* gout_c = gout + n0 * g.o * L;  // [O, nb·L] with row stride ld
    if (B > 1) {
      for (std::int64_t b_ = 0; b_ < nb; ++b_)  // [nb, O, L] -> [O, nb, L]
        for (std::int64_t o = 0; o < g.o; ++o)
          std::copy_n(gout + ((n0 + b_) * g.o + o) * L, L, gathered.data() + o * ld + b_ * L);
      gout_c = gathered.data();
    }
    if (dw) {
      for (std::int64_t b_ = 0; b_ < nb; ++b_)  // `cols` starts as zeros, and every chunk has the same ld
        im2col(x + (n0 + b_) * g.c * g.h * g.w, g, cols.data() + b_ * L, ld, true);
      for (std::int64_t grp = 0; grp < g.groups; ++grp)  // dw_g [og, K] += gout_g [og, nb·L] · cols_gᵀ [nb·L, K]
        detail::gemm(false, true, int(g.og()), int(g.k()), int(nb * L), T(1), gout_c + grp * g.og() * ld, int(ld),
                     cols.data() + grp * g.k() * ld, int(ld), T(1), dw + grp * g.og() * g.k(), int(g.k()));
    }
    if (dx) {
      for (std::int64_t grp = 0; grp < g.groups; ++grp)  // dcols_g [K, nb·L] = w_gᵀ [K, og] · gout_g [og, nb·L]
        detail::gemm(true, false, int(g.k()), int(nb * L), int(g.og()), T(1), w + grp * g.og() * g.k(), int(g.k()),
                     gout_c + grp * g.og() * ld, int(ld), T(0), dcols.data() + grp * g.k() * ld, int(ld));
      for (std::int64_t b_ = 0; b_ < nb; ++b_) {
        T* dx_img = dx + (n0 + b_) * g.c * g.h * g.w;
        std::fill_n(dx_img, g.c * g.h * g.w, T(0));
        col2im(dcols.data() + b_ * L, g, ld, dx_img);
      }
    }
  }
}

// conv2d: out = x ⋆ w + b (one GEMM per image and group over im2col columns)
// dw = Σ_n gout_n · colsᵀ,  dx = col2im(wᵀ · gout_n),  db = Σ gout over batch and positions
struct Convolution : autograd::Function<Convolution> {
  static constexpr const char* name = "ConvolutionBackward0";
  ConvGeom g{};

  // create_graph (a gradient penalty): the gradients written with recorded convolutions, so that
  // they can be differentiated again (the kernel below otherwise). The input gradient is the
  // transposed convolution of the gradient (output_padding restores the rows the stride skipped);
  // the weight gradient of group k is a convolution of the input's channels (batch as channels)
  // with the gradient's, stride and dilation swapped, cropped to the kernel.
  autograd::Grads backward_with_graph(autograd::Context& ctx, const Tensor& gy) {
    const Tensor &x = ctx.saved(0), &w = ctx.saved(1);
    Tensor dx, dw, db;
    if (ctx.needs_input_grad(0)) {
      const IntPair output_padding{(g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) - (g.oh - 1) * g.sh,
                                   (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) - (g.ow - 1) * g.sw};
      dx = conv_transpose2d(gy, w, Tensor(), IntPair{g.sh, g.sw}, IntPair{g.ph, g.pw}, output_padding, g.groups,
                            IntPair{g.dh, g.dw});
    }
    if (ctx.needs_input_grad(1)) {
      std::vector<Tensor> per_group;
      for (std::int64_t k = 0; k < g.groups; ++k) {
        const Tensor xk = x.slice(1, k * g.cg(), (k + 1) * g.cg()).transpose(0, 1);   // [C/g, N, H, W]
        const Tensor gk = gy.slice(1, k * g.og(), (k + 1) * g.og()).transpose(0, 1);  // [O/g, N, H', W']
        const Tensor full = conv2d(xk, gk, Tensor(), IntPair{g.dh, g.dw}, IntPair{g.ph, g.pw}, IntPair{g.sh, g.sw});
        per_group.push_back(full.slice(2, 0, g.kh).slice(3, 0, g.kw).transpose(0, 1));  // [O/g, C/g, kH, kW]
      }
      dw = g.groups == 1 ? per_group[0] : cat(per_group, 0);
    }
    if (ctx.needs_input_grad(2)) db = gy.sum(std::vector<std::int64_t>{0, 2, 3});
    return {dx, dw, db};
  }

  Tensor forward(autograd::Context& ctx, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const ConvGeom& geom) {
    g = geom;
    // float16/bfloat16 (autocast): widened to float32, computed, rounded once -- PyTorch's CPU
    // bfloat16 convolution accumulates in float32 too.
    const DType ct = kindling::detail::compute_dtype_of(input.dtype());
    const Tensor x = kindling::detail::contiguous_copy(kindling::detail::cast(input, ct));
    const Tensor w = kindling::detail::contiguous_copy(kindling::detail::cast(weight, ct));
    const Tensor b = bias.defined() ? kindling::detail::contiguous_copy(kindling::detail::cast(bias, ct)) : Tensor();
    Tensor out = kindling::detail::make_tensor({g.n, g.o, g.oh, g.ow}, x.dtype(), x.device());
    ctx.save_for_backward({input, weight});
    if (out.numel() == 0) return kindling::detail::cast(out, input.dtype());  // nothing to compute (and BLAS dislikes 0-sized matrices)
    // float32 with large column matrices: oneDNN's convolution primitive where it takes the shape
    // (tensor/dnnl_conv.cpp), else im2col + GEMM below (see kDirectColumnBytes).
    if (x.dtype() == kFloat32 && x.device().is_cpu() && g.k() * g.l() * std::int64_t(sizeof(float)) >= kDirectColumnBytes &&
        kindling::detail::dnnl_conv2d_forward(
            x.data_ptr<float>(), w.data_ptr<float>(), b.defined() ? b.data_ptr<float>() : nullptr,
            out.data_ptr<float>(), g))
      return kindling::detail::cast(out, input.dtype());
    kindling::detail::dispatch_floating(x.dtype(), "conv2d", [&](auto tag) {
      using T = typename decltype(tag)::type;
      conv_forward<T>(x.data_ptr<T>(), w.data_ptr<T>(), b.defined() ? b.data_ptr<T>() : nullptr, g, out.data_ptr<T>());
    });
    return kindling::detail::cast(out, input.dtype());
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    if (kindling::detail::grad_mode_enabled() && grads[0].numel() > 0) return backward_with_graph(ctx, grads[0]);
    const DType dt = ctx.saved(0).dtype(), ct = kindling::detail::compute_dtype_of(dt);
    const Tensor x = kindling::detail::contiguous_copy(kindling::detail::cast(ctx.saved(0), ct));
    const Tensor w = kindling::detail::contiguous_copy(kindling::detail::cast(ctx.saved(1), ct));
    const Tensor gout = kindling::detail::contiguous_copy(kindling::detail::cast(grads[0].to(dt), ct));
    Tensor dx, dw, db;
    if (ctx.needs_input_grad(0)) dx = kindling::detail::make_tensor(x.shape(), x.dtype(), x.device());  // conv_backward zeroes it
    if (ctx.needs_input_grad(1)) dw = zeros_like(w);
    if (ctx.needs_input_grad(2)) db = zeros({g.o}, {.dtype = x.dtype()});
    // Gradients in the inputs' own dtype (float32 inside for float16/bfloat16).
    auto narrow = [dt](const Tensor& t) { return t.defined() ? kindling::detail::cast(t, dt) : t; };
    if (gout.numel() == 0) {  // no output: nothing reached the input
      if (dx.defined()) dx.zero_();
      return {narrow(dx), narrow(dw), narrow(db)};
    }
    kindling::detail::dispatch_floating(x.dtype(), "conv2d backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      conv_backward<T>(x.data_ptr<T>(), w.data_ptr<T>(), gout.data_ptr<T>(), g, dx.defined() ? dx.data_ptr<T>() : nullptr,
                       dw.defined() ? dw.data_ptr<T>() : nullptr, db.defined() ? db.data_ptr<T>() : nullptr);
    });
    return {narrow(dx), narrow(dw), narrow(db)};
  }
};

}  // namespace

Tensor conv2d(const Tensor& input_in, const Tensor& weight_in, const Tensor& bias_in, IntPair stride,
              Padding padding_in, IntPair dilation, std::int64_t groups) {
  // "same" / "valid": the numbers they stand for, in conv_variants.cpp.
  if (padding_in.is_mode()) return detail::conv2d_padding_mode(input_in, weight_in, bias_in, stride, padding_in.mode,
                                                              dilation, groups);
  const IntPair padding = padding_in.size;
  // Under autocast conv2d runs in the autocast dtype (PyTorch's lower-precision list).
  const Tensor input = kindling::detail::autocast_to_lower(input_in);
  const Tensor weight = kindling::detail::autocast_to_lower(weight_in);
  const Tensor bias = kindling::detail::autocast_to_lower(bias_in);
  detail::check_same_device("conv2d", {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  kindling::detail::check_cpu(input, "conv2d");
  if (input.dim() == 3) {  // unbatched [C, H, W], like PyTorch
    return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0);
  }
  if (input.dim() != 4) {
    throw ShapeError("conv2d: expected a 4-D input [N, C, H, W] (or 3-D [C, H, W]) but got shape " +
                     shape_str(input.shape()) + ". Hint: a batch of grayscale images needs a channel dimension: "
                     "x.unsqueeze(1) turns [N, H, W] into [N, 1, H, W].");
  }
  if (weight.dim() != 4) {
    throw ShapeError("conv2d: weight must be 4-D [out_channels, in_channels/groups, kH, kW] but has shape " +
                     shape_str(weight.shape()));
  }
  detail::check_floating("conv2d", "input", input);
  detail::check_same_dtype("conv2d", {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  if (groups < 1 || weight.size(0) % groups != 0) {
    throw ValueError("conv2d: groups=" + std::to_string(groups) + " must be positive and divide out_channels=" +
                     std::to_string(weight.size(0)));
  }
  if (stride.h < 1 || stride.w < 1 || dilation.h < 1 || dilation.w < 1 || padding.h < 0 || padding.w < 0) {
    throw ValueError("conv2d: stride " + stride.str(true) + " and dilation " + dilation.str(true) +
                     " must be positive and padding " + padding.str(true) + " non-negative");
  }
  ConvGeom g{input.size(0), input.size(1), input.size(2), input.size(3), weight.size(0), weight.size(2), weight.size(3),
             stride.h, stride.w, padding.h, padding.w, dilation.h, dilation.w, groups, 0, 0};
  if (weight.size(1) * groups != g.c) {
    throw ShapeError("conv2d: input " + shape_str(input.shape()) + " has " + std::to_string(g.c) +
                     " channels, but weight " + shape_str(weight.shape()) + " expects " +
                     std::to_string(weight.size(1) * groups) + " (in_channels/groups=" + std::to_string(weight.size(1)) +
                     ", groups=" + std::to_string(groups) + "). Hint: check the previous layer's out_channels.");
  }
  if (bias.defined() && bias.shape() != Shape{g.o}) {
    throw ShapeError("conv2d: bias must have shape [" + std::to_string(g.o) + "] but has " + shape_str(bias.shape()));
  }
  g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  if (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1 < 0 || g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1 < 0) {
    throw ShapeError("conv2d: input " + shape_str(input.shape()) + " with padding " + padding.str(true) +
                     " is smaller than the (dilated) kernel " + std::to_string(g.dh * (g.kh - 1) + 1) + "x" +
                     std::to_string(g.dw * (g.kw - 1) + 1) + ". Hint: add padding or use a smaller kernel.");
  }
  return Convolution::apply(input, weight, bias, g);
}


// ---- conv_transpose2d: the adjoint of conv2d ---------------------------------------------------------
// A transposed convolution of x is the input gradient of the conv2d that maps its *output* back to x:
// with that conv's geometry g (input [C_out, H', W'], weight [C_in, C_out/groups, kH, kW], output
// [C_in, H, W]), forward is col2im(wᵀ · x) -- the dx path of conv_backward -- and backward swaps the
// roles: dx = conv2d(gout, w), dw = the dw path of conv_backward with (x, gout) = (gout, x).
namespace {

struct ConvTranspose : autograd::Function<ConvTranspose> {
  static constexpr const char* name = "ConvolutionBackward0";  // PyTorch's node for both directions
  ConvGeom g{};  // of the adjoint conv2d: g.c = C_out, g.h/g.w = H'/W', g.o = C_in, g.oh/g.ow = H/W

  // create_graph: the gradients written with recorded convolutions (the kernels below otherwise).
  // dx is the adjoint conv2d of the gradient; dw is that conv2d's weight gradient with its input
  // the gradient [N, C_out, H, W] and its output gradient x [N, C_in, H', W'] -- per group, a
  // conv2d with batch as channels, stride and dilation swapped, cropped to the kernel.
  autograd::Grads backward_with_graph(autograd::Context& ctx, const Tensor& gout) {
    const Tensor &x = ctx.saved(0), &w = ctx.saved(1);
    const IntPair stride{g.sh, g.sw}, padding{g.ph, g.pw}, dilation{g.dh, g.dw};
    Tensor dx, dw, db;
    if (ctx.needs_input_grad(0)) dx = conv2d(gout, w, Tensor(), stride, padding, dilation, g.groups);
    if (ctx.needs_input_grad(1)) {
      std::vector<Tensor> per_group;
      for (std::int64_t k = 0; k < g.groups; ++k) {
        const Tensor gk = gout.slice(1, k * g.cg(), (k + 1) * g.cg()).transpose(0, 1);  // [C_out/g, N, H, W]
        const Tensor xk = x.slice(1, k * g.og(), (k + 1) * g.og()).transpose(0, 1);     // [C_in/g, N, H', W']
        const Tensor full = conv2d(gk, xk, Tensor(), dilation, padding, stride);
        per_group.push_back(full.slice(2, 0, g.kh).slice(3, 0, g.kw).transpose(0, 1));  // [C_in/g, C_out/g, kH, kW]
      }
      dw = g.groups == 1 ? per_group[0] : cat(per_group, 0);
    }
    if (ctx.needs_input_grad(2)) db = gout.sum(std::vector<std::int64_t>{0, 2, 3});
    return {dx, dw, db};
  }

  Tensor forward(autograd::Context& ctx, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const ConvGeom& geom) {
    g = geom;
    const DType ct = kindling::detail::compute_dtype_of(input.dtype());
    const Tensor x = kindling::detail::contiguous_copy(kindling::detail::cast(input, ct));
    const Tensor w = kindling::detail::contiguous_copy(kindling::detail::cast(weight, ct));
    const Tensor b = bias.defined() ? kindling::detail::contiguous_copy(kindling::detail::cast(bias, ct)) : Tensor();
    // conv_backward zeroes each image of out before col2im adds into it; with no input it does not
    // run, and the output is the bias alone.
    const bool computed = x.numel() != 0 && g.n * g.c * g.h * g.w != 0;  // BLAS dislikes 0-sized matrices
    Tensor out = computed ? kindling::detail::make_tensor({g.n, g.c, g.h, g.w}, x.dtype(), x.device())
                          : zeros({g.n, g.c, g.h, g.w}, {.dtype = x.dtype()});
    ctx.save_for_backward({input, weight});
    kindling::detail::dispatch_floating(x.dtype(), "conv_transpose2d", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (computed)
        conv_backward<T>(nullptr, w.data_ptr<T>(), x.data_ptr<T>(), g, out.data_ptr<T>(), nullptr, nullptr);
      if (b.defined()) {
        const T* bp = b.data_ptr<T>();
        T* o = out.data_ptr<T>();
        const std::int64_t plane = g.h * g.w;
        for (std::int64_t n = 0; n < g.n; ++n)
          for (std::int64_t c = 0; c < g.c; ++c)
            for (std::int64_t p = 0; p < plane; ++p) o[(n * g.c + c) * plane + p] += bp[c];
      }
    });
    return kindling::detail::cast(out, input.dtype());
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    if (kindling::detail::grad_mode_enabled() && grads[0].numel() > 0 && ctx.saved(0).numel() > 0)
      return backward_with_graph(ctx, grads[0]);
    const DType dt = ctx.saved(0).dtype(), ct = kindling::detail::compute_dtype_of(dt);
    const Tensor x = kindling::detail::contiguous_copy(kindling::detail::cast(ctx.saved(0), ct));
    const Tensor w = kindling::detail::contiguous_copy(kindling::detail::cast(ctx.saved(1), ct));
    const Tensor gout = kindling::detail::contiguous_copy(kindling::detail::cast(grads[0].to(dt), ct));
    Tensor dx, dw, db;
    if (ctx.needs_input_grad(0)) dx = zeros_like(x);
    if (ctx.needs_input_grad(1)) dw = zeros_like(w);
    if (ctx.needs_input_grad(2)) db = gout.sum(std::vector<std::int64_t>{0, 2, 3});  // [C_out]
    auto narrow = [dt](const Tensor& t) { return t.defined() ? kindling::detail::cast(t, dt) : t; };
    if (gout.numel() == 0 || x.numel() == 0) return {narrow(dx), narrow(dw), narrow(db)};
    kindling::detail::dispatch_floating(x.dtype(), "conv_transpose2d backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (dx.defined()) conv_forward<T>(gout.data_ptr<T>(), w.data_ptr<T>(), nullptr, g, dx.data_ptr<T>());
      if (dw.defined())
        conv_backward<T>(gout.data_ptr<T>(), w.data_ptr<T>(), x.data_ptr<T>(), g, nullptr, dw.data_ptr<T>(), nullptr);
    });
    return {narrow(dx), narrow(dw), narrow(db)};
  }
};

}  // namespace

Tensor conv_transpose2d(const Tensor& input_in, const Tensor& weight_in, const Tensor& bias_in, IntPair stride,
                        IntPair padding, IntPair output_padding, std::int64_t groups, IntPair dilation) {
  // On autocast's float32 list, unlike conv2d (PyTorch 1.13's CPU list: conv_transpose1d/2d/3d
  // run in float32 whatever their inputs' dtype).
  const Tensor input = kindling::detail::autocast_to_float32(input_in);
  const Tensor weight = kindling::detail::autocast_to_float32(weight_in);
  const Tensor bias = kindling::detail::autocast_to_float32(bias_in);
  detail::check_same_device("conv_transpose2d", {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  kindling::detail::check_cpu(input, "conv_transpose2d");
  if (input.dim() == 3) {  // unbatched [C, H, W], like PyTorch
    return conv_transpose2d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation)
        .squeeze(0);
  }
  if (input.dim() != 4) {
    throw ShapeError("conv_transpose2d: expected a 4-D input [N, C, H, W] (or 3-D [C, H, W]) but got shape " +
                     shape_str(input.shape()));
  }
  if (weight.dim() != 4) {
    throw ShapeError("conv_transpose2d: weight must be 4-D [in_channels, out_channels/groups, kH, kW] but has shape " +
                     shape_str(weight.shape()));
  }
  detail::check_floating("conv_transpose2d", "input", input);
  detail::check_same_dtype("conv_transpose2d", {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  if (groups < 1 || weight.size(0) % groups != 0) {
    throw ValueError("conv_transpose2d: groups=" + std::to_string(groups) + " must be positive and divide "
                     "in_channels=" + std::to_string(weight.size(0)));
  }
  if (stride.h < 1 || stride.w < 1 || dilation.h < 1 || dilation.w < 1 || padding.h < 0 || padding.w < 0 ||
      output_padding.h < 0 || output_padding.w < 0) {
    throw ValueError("conv_transpose2d: stride " + stride.str(true) + " and dilation " + dilation.str(true) +
                     " must be positive, padding " + padding.str(true) + " and output_padding " +
                     output_padding.str(true) + " non-negative");
  }
  if ((output_padding.h >= stride.h && output_padding.h >= dilation.h) ||
      (output_padding.w >= stride.w && output_padding.w >= dilation.w)) {
    throw ValueError("conv_transpose2d: output padding must be smaller than either stride or dilation, but got "
                     "output_padding " + output_padding.str(true) + ", stride " + stride.str(true) + ", dilation " +
                     dilation.str(true) + ". Hint: output_padding only picks among the output sizes a strided "
                     "conv2d maps to the same input size.");
  }
  if (input.size(1) != weight.size(0)) {
    throw ShapeError("conv_transpose2d: input " + shape_str(input.shape()) + " has " + std::to_string(input.size(1)) +
                     " channels, but weight " + shape_str(weight.shape()) + " expects " +
                     std::to_string(weight.size(0)) + " (weight is [in_channels, out_channels/groups, kH, kW]).");
  }
  const std::int64_t c_out = weight.size(1) * groups;
  if (bias.defined() && bias.shape() != Shape{c_out}) {
    throw ShapeError("conv_transpose2d: bias must have shape [" + std::to_string(c_out) + "] but has " +
                     shape_str(bias.shape()));
  }
  const std::int64_t kh = weight.size(2), kw = weight.size(3);
  const std::int64_t oh = (input.size(2) - 1) * stride.h - 2 * padding.h + dilation.h * (kh - 1) + output_padding.h + 1;
  const std::int64_t ow = (input.size(3) - 1) * stride.w - 2 * padding.w + dilation.w * (kw - 1) + output_padding.w + 1;
  if (oh < 1 || ow < 1) {
    throw ShapeError("conv_transpose2d: input " + shape_str(input.shape()) + " with padding " + padding.str(true) +
                     " gives an output of " + std::to_string(oh) + "x" + std::to_string(ow) +
                     ". Hint: the padding removes more than the kernel adds; use less padding.");
  }
  // The adjoint conv2d: from [N, C_out, oh, ow] to [N, C_in, H, W].
  ConvGeom g{input.size(0), c_out, oh, ow, weight.size(0), kh, kw, stride.h, stride.w, padding.h, padding.w,
             dilation.h, dilation.w, groups, input.size(2), input.size(3)};
  return ConvTranspose::apply(input, weight, bias, g);
}

}  // namespace kindling::nn::functional
