// The convolutions built on conv2d: padding="same"/"valid", and conv1d (a conv2d over a height of 1).
// Both are compositions of conv2d with views and a slice, so their backward is conv2d's
// (ConvolutionBackward0, as in PyTorch) plus the views'.
#include <string>
#include <utility>

#include "kindling/nn/functional.hpp"
#include "nn/conv_padding.hpp"

namespace kindling::nn {

using functional::IntPair;
using functional::Padding;

namespace {

// padding="same" along one dim: the total padding dil·(k-1), split left = total/2 and right = the
// rest (PyTorch puts the odd one at the end). Returned as (symmetric padding, rows to drop): with an
// odd total we pad right on both sides and drop the first output row, which is the same as padding
// `left` before and `right` after -- without a separate pad op.
std::pair<std::int64_t, std::int64_t> same_padding(std::int64_t kernel, std::int64_t dilation) {
  const std::int64_t total = dilation * (kernel - 1);
  const std::int64_t left = total / 2, extra = total % 2;
  return {left + extra, extra};
}

// Throws unless `padding` is one of PyTorch's strings; true for "same".
bool check_padding_string(const std::string& padding, const char* op, bool unit_stride) {
  if (padding != "same" && padding != "valid") {
    throw ValueError(std::string(op) + ": Invalid padding string '" + padding +
                     "', should be one of {'valid', 'same'}. Hint: or give the padding as numbers.");
  }
  if (padding == "same" && !unit_stride) {
    throw ValueError(std::string(op) + ": padding='same' is not supported for strided convolutions (the output "
                     "could not keep the input's size). Hint: use stride 1, or give the padding as numbers.");
  }
  return padding == "same";
}

}  // namespace

Tensor detail::conv2d_padding_mode(const Tensor& x, const Tensor& weight, const Tensor& bias, IntPair stride,
                                   const std::string& padding, IntPair dilation, std::int64_t groups) {
  using functional::conv2d;
  const bool same = check_padding_string(padding, "conv2d", stride.h == 1 && stride.w == 1);
  if (!same || weight.dim() != 4 || dilation.h < 1 || dilation.w < 1) {
    return conv2d(x, weight, bias, stride, 0, dilation, groups);  // "valid", or conv2d names the bad argument
  }
  const auto [ph, drop_h] = same_padding(weight.size(2), dilation.h);
  const auto [pw, drop_w] = same_padding(weight.size(3), dilation.w);
  Tensor out = conv2d(x, weight, bias, stride, IntPair(ph, pw), dilation, groups);
  const std::int64_t hd = out.dim() - 2, wd = out.dim() - 1;  // [N, O, H, W] or unbatched [O, H, W]
  if (drop_h) out = out.slice(hd, 1, out.size(hd));
  if (drop_w) out = out.slice(wd, 1, out.size(wd));
  return out;
}

}  // namespace kindling::nn

namespace kindling::nn::functional {

namespace {
// x [N, C, L] / [C, L] and weight [O, C/groups, k], checked here so that errors name conv1d and the
// shapes the caller passed, not the 4-D views conv2d sees.
void check_conv1d_args(const Tensor& x, const Tensor& weight, std::int64_t groups) {
  if (x.dim() != 2 && x.dim() != 3) {
    throw ShapeError("conv1d: expected a 3-D input [N, C, L] (or 2-D [C, L]) but got shape " + shape_str(x.shape()) +
                     ". Hint: a batch of single-channel sequences needs a channel dimension: x.unsqueeze(1).");
  }
  if (weight.dim() != 3) {
    throw ShapeError("conv1d: weight must be 3-D [out_channels, in_channels/groups, k] but has shape " +
                     shape_str(weight.shape()));
  }
  if (groups >= 1 && weight.size(1) * groups != x.size(-2)) {
    throw ShapeError("conv1d: input " + shape_str(x.shape()) + " has " + std::to_string(x.size(-2)) +
                     " channels, but weight " + shape_str(weight.shape()) + " expects " +
                     std::to_string(weight.size(1) * groups) + " (in_channels/groups=" + std::to_string(weight.size(1)) +
                     ", groups=" + std::to_string(groups) + "). Hint: check the previous layer's out_channels.");
  }
}

// [.., C, L] → [.., C, 1, L] and back: the length becomes the width of a one-row image.
Tensor as_image(const Tensor& t) { return t.unsqueeze(t.dim() - 1); }
Tensor as_sequence(const Tensor& t) { return t.squeeze(t.dim() - 2); }
}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, std::int64_t stride, Padding padding,
              std::int64_t dilation, std::int64_t groups) {
  check_conv1d_args(x, weight, groups);
  if (padding.is_mode()) {
    check_padding_string(padding.mode, "conv1d", stride == 1);
  } else if (!padding.size.is_scalar) {
    throw ValueError("conv1d: padding must be one number (or 'same'/'valid'), got " + padding.size.str(true));
  }
  // The height of the one-row image gets no padding; its width gets the sequence's.
  const Padding p2 = padding.is_mode() ? Padding(padding.mode) : Padding(std::int64_t{0}, padding.size.w);
  return as_sequence(conv2d(as_image(x), as_image(weight), bias, IntPair(1, stride), p2, IntPair(1, dilation), groups));
}

}  // namespace kindling::nn::functional
