// The layers around functional conv2d / pooling: parameters, defaults, printing.
#include <cmath>

#include "kindling/nn/conv.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/nn/pooling.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/repr.hpp"

namespace kindling::nn {

namespace F = functional;

Conv2d::Conv2d(std::int64_t in, std::int64_t out, F::IntPair kernel, Conv2dOptions opts)
    : in_channels(in), out_channels(out), kernel_size(kernel), options(opts) {
  if (opts.groups < 1 || in % opts.groups != 0 || out % opts.groups != 0) {
    throw ValueError("Conv2d: in_channels (" + std::to_string(in) + ") and out_channels (" + std::to_string(out) +
                     ") must be divisible by groups (" + std::to_string(opts.groups) + ")");
  }
  if (kernel.h < 1 || kernel.w < 1) throw ValueError("Conv2d: kernel_size " + kernel.str(true) + " must be positive");
  weight = register_parameter("weight", empty({out, in / opts.groups, kernel.h, kernel.w}));
  if (opts.bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv2d::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor Conv2d::forward(const Tensor& x) {
  return F::conv2d(x, weight, bias, options.stride, options.padding, options.dilation, options.groups);
}

std::string Conv2d::extra_repr() const {
  // PyTorch's _ConvNd.extra_repr: non-default settings only, sizes always as tuples.
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + kernel_size.str(true) + ", stride=" + options.stride.str(true);
  if (options.padding.h != 0 || options.padding.w != 0) s += ", padding=" + options.padding.str(true);
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
