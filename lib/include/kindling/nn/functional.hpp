#pragma once
/// @file
/// torch.nn.functional: the stateless forms of the layers. A layer (nn::Conv2d) holds parameters and
/// calls the function here (nn::functional::conv2d) with them. `namespace F = kd::nn::functional;`
/// All are differentiable; ops with no composition of tensor ops (conv, pooling, embedding, GELU) or
/// with a faster fused backward (batch_norm, layer_norm) bring their own autograd node, named like
/// PyTorch's (ConvolutionBackward0, MaxPool2DWithIndicesBackward0, NativeBatchNormBackward0, ...).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::nn::functional {

/// Two sizes (height, width) that may be written as one number: `2` means (2, 2). Remembers which,
/// because PyTorch prints pooling sizes the way they were given.
struct IntPair {
  std::int64_t h = 0, w = 0;
  bool is_scalar = true;
  IntPair(std::int64_t v) : h(v), w(v) {}  // NOLINT: implicit on purpose, `.stride = 2`
  IntPair(int v) : h(v), w(v) {}           // NOLINT
  IntPair(std::int64_t h_, std::int64_t w_) : h(h_), w(w_), is_scalar(false) {}
  /// "2" or "(2, 3)" as PyTorch prints it; `as_tuple` forces "(2, 2)".
  std::string str(bool as_tuple = false) const;
};

/// A convolution's padding: numbers (one for both dims, or (h, w)), or one of PyTorch's strings:
/// "valid" (no padding) and "same" (the output keeps the input's size; stride must be 1; an odd
/// total padding dilation·(k-1) puts the extra row or column at the end, as PyTorch does).
/// `conv2d(x, w, b, 1, "same")`, `Conv2d(3, 8, 3, {.padding = "same"})`.
struct Padding {
  IntPair size = 0;
  std::string mode;  ///< "" when `size` holds numbers, else "same" or "valid"
  Padding(int v) : size(v) {}                                      // NOLINT: implicit on purpose
  Padding(std::int64_t v) : size(v) {}                             // NOLINT
  Padding(std::int64_t h, std::int64_t w) : size(h, w) {}
  Padding(IntPair p) : size(p) {}                                  // NOLINT
  Padding(const char* m) : mode(m) {}                              // NOLINT
  Padding(std::string m) : mode(std::move(m)) {}                   // NOLINT
  bool is_mode() const { return !mode.empty(); }
};

// ---- activations --------------------------------------------------------------------------------
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
/// x·Φ(x) with the exact normal CDF Φ(x) = ½(1 + erf(x/√2)) (PyTorch's approximate='none'),
/// or the tanh approximation when `approximate` is "tanh".
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
/// x for x > 0, negative_slope·x otherwise.
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
/// x·σ(x) (also called swish).
Tensor silu(const Tensor& x);
/// x for x > 0, alpha·(eˣ - 1) otherwise.
Tensor elu(const Tensor& x, double alpha = 1.0);
/// x clamped to [min_val, max_val]; the gradient passes strictly inside (0 at the bounds, where
/// clamp's passes it). An integer x keeps its dtype, as in PyTorch.
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0);
/// hardtanh(x, 0, 6).
Tensor relu6(const Tensor& x);
/// log(1 + e^(β·x)) / β, a smooth ReLU; where β·x > threshold it returns x itself (same value to
/// float precision, and e^(β·x) would overflow).
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor softmax(const Tensor& x, std::int64_t dim);
Tensor log_softmax(const Tensor& x, std::int64_t dim);

// ---- linear, dropout, shape ---------------------------------------------------------------------
/// x·Wᵀ + b. x: [*, in], weight: [out, in], bias: [out] (may be undefined) → [*, out].
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
/// In training, zeroes each element with probability p and scales the rest by 1/(1-p), so the
/// expected value is unchanged; outside training, returns x itself.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);
/// x.flatten(start_dim, end_dim).
Tensor flatten(const Tensor& x, std::int64_t start_dim = 1, std::int64_t end_dim = -1);

// ---- convolution and pooling (NCHW) -------------------------------------------------------------
/// 2-D cross-correlation. x: [N, C, H, W], weight: [O, C/groups, kH, kW], bias: [O] or undefined →
/// [N, O, H', W'] with H' = (H + 2·pad - dil·(kH-1) - 1) / stride + 1. Computed as im2col + one GEMM
/// per image and group; backward is GEMMs + col2im.
/// `padding` is numbers or "same"/"valid" (see Padding).
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), IntPair stride = 1,
              Padding padding = 0, IntPair dilation = 1, std::int64_t groups = 1);
/// 1-D cross-correlation. x: [N, C, L] (or [C, L]), weight: [O, C/groups, k], bias: [O] →
/// [N, O, L'] with L' = (L + 2·pad - dil·(k-1) - 1) / stride + 1: conv2d over a height of 1.
/// `padding` is one number or "same"/"valid".
Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), std::int64_t stride = 1,
              Padding padding = 0, std::int64_t dilation = 1, std::int64_t groups = 1);
/// The transpose (adjoint) of conv2d, sometimes called a deconvolution: it spreads each input
/// position over a kernel-sized patch of the output. x: [N, C_in, H, W], weight: [C_in,
/// C_out/groups, kH, kW], bias: [C_out] → [N, C_out, H', W'] with
/// H' = (H-1)·stride - 2·pad + dil·(kH-1) + output_padding + 1. Its forward is conv2d's input
/// gradient (col2im of weightᵀ·x), its input gradient is conv2d itself.
Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), IntPair stride = 1,
                        IntPair padding = 0, IntPair output_padding = 0, std::int64_t groups = 1,
                        IntPair dilation = 1);
/// Max over each window (padding counts as -inf). stride defaults to kernel_size (pass 0).
Tensor max_pool2d(const Tensor& x, IntPair kernel_size, IntPair stride = 0, IntPair padding = 0,
                  IntPair dilation = 1, bool ceil_mode = false);
/// Mean over each window; count_include_pad divides by the full window size, padding included.
Tensor avg_pool2d(const Tensor& x, IntPair kernel_size, IntPair stride = 0, IntPair padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true);
/// Average pooling to a fixed output size (windows from floor(i·H/out) to ceil((i+1)·H/out)).
Tensor adaptive_avg_pool2d(const Tensor& x, IntPair output_size);

// ---- resampling ---------------------------------------------------------------------------------
struct InterpolateOptions {
  std::vector<std::int64_t> size = {};  ///< the output's (H, W), or one number for both
  std::vector<double> scale_factor = {};  ///< or the scale of (H, W), or one for both: out = floor(in · scale)
  std::string mode = "nearest";  ///< "nearest" or "bilinear"
  /// bilinear only: true aligns the centres of the corner pixels (the corners map exactly onto
  /// each other); false (the default when unset) treats pixels as areas. Setting it for "nearest"
  /// is an error, as in PyTorch.
  std::optional<bool> align_corners = std::nullopt;
};
/// Resizes [N, C, H, W] images to `size` (or by `scale_factor`): "nearest" copies the pixel
/// floor(dst · in/out) (PyTorch's legacy 'nearest'), "bilinear" mixes the four nearest pixels.
/// Each has its own backward (the adjoint: every output gradient goes back to the pixels it read).
Tensor interpolate(const Tensor& x, const InterpolateOptions& options);

// ---- normalisation ------------------------------------------------------------------------------
/// Batch normalisation over every dimension but 1 (channels). x: [N, C] or [N, C, *].
/// With `training`, normalises with the batch's biased variance and, if running_mean/running_var
/// are defined, updates them in place: running = (1-momentum)·running + momentum·batch (unbiased
/// variance). Otherwise normalises with the running statistics.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
/// Normalises over the last normalized_shape.size() dims, then scales and shifts elementwise.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// ---- lookup -------------------------------------------------------------------------------------
/// Rows of `weight` [num_embeddings, dim] picked by int64 `indices` of any shape → [*indices, dim].
/// An index outside [0, num_embeddings) throws kd::IndexError naming it.
Tensor embedding(const Tensor& indices, const Tensor& weight);

}  // namespace kindling::nn::functional
