// The layers around functional conv2d / pooling: parameters, defaults, printing.
#include <cmath>

#include "kindling/nn/conv.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/nn/pooling.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/repr.hpp"

namespace kindling::nn {

namespace F = functional;

namespace {
// PyTorch's _ConvNd checks, at construction rather than at the first forward.
void check_padding_mode(const F::Padding& p, const char* layer, bool unit_stride) {
  if (!p.is_mode()) return;
  if (p.mode != "same" && p.mode != "valid") {
    throw ValueError(std::string(layer) + ": Invalid padding string '" + p.mode +
                     "', should be one of {'valid', 'same'}");
  }
  if (p.mode == "same" && !unit_stride) {
    throw ValueError(std::string(layer) + ": padding='same' is not supported for strided convolutions");
  }
}

void check_groups(std::int64_t in, std::int64_t out, std::int64_t groups, const char* layer) {
  if (groups < 1 || in % groups != 0 || out % groups != 0) {
    throw ValueError(std::string(layer) + ": in_channels (" + std::to_string(in) + ") and out_channels (" +
                     std::to_string(out) + ") must be divisible by groups (" + std::to_string(groups) + ")");
  }
}

// PyTorch's reset_parameters of every _ConvNd: kaiming_uniform_(a=√5) on the weight, the bias
// U(-1/√fan_in, 1/√fan_in) with fan_in from the weight's dims 1 and up.
void reset_conv(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}
}  // namespace

// ---- Conv1d -------------------------------------------------------------------------------------------
Conv1d::Conv1d(std::int64_t in, std::int64_t out, std::int64_t kernel, Conv1dOptions opts)
    : in_channels(in), out_channels(out), kernel_size(kernel), options(std::move(opts)) {
  check_groups(in, out, options.groups, "Conv1d");
  if (kernel < 1) throw ValueError("Conv1d: kernel_size " + std::to_string(kernel) + " must be positive");
  check_padding_mode(options.padding, "Conv1d", options.stride == 1);
  if (!options.padding.is_mode() && !options.padding.size.is_scalar)
    throw ValueError("Conv1d: padding must be one number (or 'same'/'valid'), got " + options.padding.size.str(true));
  weight = register_parameter("weight", empty({out, in / options.groups, kernel}));
  if (options.bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}
void Conv1d::reset_parameters() { reset_conv(weight, bias); }
Tensor Conv1d::forward(const Tensor& x) {
  return F::conv1d(x, weight, bias, options.stride, options.padding, options.dilation, options.groups);
}
std::string Conv1d::extra_repr() const {
  // PyTorch's _ConvNd.extra_repr with 1-tuples: "kernel_size=(3,), stride=(1,)".
  auto one = [](std::int64_t v) { return "(" + std::to_string(v) + ",)"; };
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) + ", kernel_size=" + one(kernel_size) +
                  ", stride=" + one(options.stride);
  if (options.padding.is_mode()) s += ", padding=" + options.padding.mode;
  else if (options.padding.size.h != 0) s += ", padding=" + one(options.padding.size.h);
  if (options.dilation != 1) s += ", dilation=" + one(options.dilation);
  if (options.groups != 1) s += ", groups=" + std::to_string(options.groups);
  if (!bias.defined()) s += ", bias=False";
  return s;
}

// ---- ConvTranspose2d ----------------------------------------------------------------------------------
ConvTranspose2d::ConvTranspose2d(std::int64_t in, std::int64_t out, F::IntPair kernel, ConvTranspose2dOptions opts)
    : in_channels(in), out_channels(out), kernel_size(kernel), options(opts) {
  check_groups(in, out, opts.groups, "ConvTranspose2d");
  if (kernel.h < 1 || kernel.w < 1) {
    throw ValueError("ConvTranspose2d: kernel_size " + kernel.str(true) + " must be positive");
  }
  weight = register_parameter("weight", empty({in, out / opts.groups, kernel.h, kernel.w}));
  if (opts.bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}
void ConvTranspose2d::reset_parameters() { reset_conv(weight, bias); }
Tensor ConvTranspose2d::forward(const Tensor& x) {
  return F::conv_transpose2d(x, weight, bias, options.stride, options.padding, options.output_padding, options.groups,
                             options.dilation);
}
std::string ConvTranspose2d::extra_repr() const {
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + kernel_size.str(true) + ", stride=" + options.stride.str(true);
  if (options.padding.h != 0 || options.padding.w != 0) s += ", padding=" + options.padding.str(true);
  if (options.dilation.h != 1 || options.dilation.w != 1) s += ", dilation=" + options.dilation.str(true);
  if (options.output_padding.h != 0 || options.output_padding.w != 0)
    s += ", output_padding=" + options.output_padding.str(true);
  if (options.groups != 1) s += ", groups=" + std::to_string(options.groups);
  if (!bias.defined()) s += ", bias=False";
  return s;
}

// ---- Conv2d -------------------------------------------------------------------------------------------
Conv2d::Conv2d(std::int64_t in, std::int64_t out, F::IntPair kernel, Conv2dOptions opts)
    : in_channels(in), out_channels(out), kernel_size(kernel), options(opts) {
  if (opts.groups < 1 || in % opts.groups != 0 || out % opts.groups != 0) {
    throw ValueError("Conv2d: in_channels (" + std::to_string(in) + ") and out_channels (" + std::to_string(out) +
                     ") must be divisible by groups (" + std::to_string(opts.groups) + ")");
  }
  if (kernel.h < 1 || kernel.w < 1) throw ValueError("Conv2d: kernel_size " + kernel.str(true) + " must be positive");
  check_padding_mode(opts.padding, "Conv2d", opts.stride.h == 1 && opts.stride.w == 1);
  weight = register_parameter("weight", empty({out, in / opts.groups, kernel.h, kernel.w}));
  if (opts.bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv2d::reset_parameters() { reset_conv(weight, bias); }

Tensor Conv2d::forward(const Tensor& x) {
  return F::conv2d(x, weight, bias, options.stride, options.padding, options.dilation, options.groups);
}

std::string Conv2d::extra_repr() const {
  // PyTorch's _ConvNd.extra_repr: non-default settings only, sizes always as tuples.
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + kernel_size.str(true) + ", stride=" + options.stride.str(true);
  if (options.padding.is_mode()) s += ", padding=" + options.padding.mode;
  else if (options.padding.size.h != 0 || options.padding.size.w != 0) s += ", padding=" + options.padding.size.str(true);
  if (options.dilation.h != 1 || options.dilation.w != 1) s += ", dilation=" + options.dilation.str(true);
  if (options.groups != 1) s += ", groups=" + std::to_string(options.groups);
  if (!bias.defined()) s += ", bias=False";
  return s;
}

MaxPool2d::MaxPool2d(F::IntPair k, MaxPool2dOptions opts) : kernel_size(k), options(opts) {}
Tensor MaxPool2d::forward(const Tensor& x) {
  return F::max_pool2d(x, kernel_size, options.stride.value_or(kernel_size), options.padding, options.dilation,
                       options.ceil_mode);
}
std::string MaxPool2d::extra_repr() const {
  return "kernel_size=" + kernel_size.str() + ", stride=" + options.stride.value_or(kernel_size).str() +
         ", padding=" + options.padding.str() + ", dilation=" + options.dilation.str() +
         ", ceil_mode=" + detail::py_bool(options.ceil_mode);
}

AvgPool2d::AvgPool2d(F::IntPair k, AvgPool2dOptions opts) : kernel_size(k), options(opts) {}
Tensor AvgPool2d::forward(const Tensor& x) {
  return F::avg_pool2d(x, kernel_size, options.stride.value_or(kernel_size), options.padding, options.ceil_mode,
                       options.count_include_pad);
}
std::string AvgPool2d::extra_repr() const {
  return "kernel_size=" + kernel_size.str() + ", stride=" + options.stride.value_or(kernel_size).str() +
         ", padding=" + options.padding.str();
}

Tensor AdaptiveAvgPool2d::forward(const Tensor& x) { return F::adaptive_avg_pool2d(x, output_size); }

}  // namespace kindling::nn
