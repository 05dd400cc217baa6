// torchvision.ops' blocks: Conv2dNormActivation, SqueezeExcitation, StochasticDepth.
#include "kindling/vision/ops.hpp"

#include "kindling/nn/normalization.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/random.hpp"
#include "nn/repr.hpp"

namespace kindling::vision::ops {

std::shared_ptr<nn::Module> make_activation(Activation kind, bool inplace) {
  switch (kind) {
    case Activation::None: return nullptr;
    case Activation::ReLU: return std::make_shared<nn::ReLU>(inplace);
    case Activation::ReLU6: return std::make_shared<nn::ReLU6>(inplace);
    case Activation::SiLU: return std::make_shared<nn::SiLU>(inplace);
    case Activation::Hardswish: return std::make_shared<nn::Hardswish>(inplace);
    case Activation::Sigmoid: return std::make_shared<nn::Sigmoid>();  // PyTorch's has no inplace flag
  }
  throw ValueError("make_activation: unknown activation");
}

Conv2dNormActivation::Conv2dNormActivation(std::int64_t in_channels, std::int64_t out_channels_,
                                           std::int64_t kernel_size, Conv2dNormActivationOptions o)
    : out_channels(out_channels_) {
  const std::int64_t padding = o.padding ? *o.padding : (kernel_size - 1) / 2 * o.dilation;
  const bool bias = o.bias ? *o.bias : !o.norm;
  push_back(nn::Conv2d(in_channels, out_channels, kernel_size,
                       {.stride = o.stride, .padding = padding, .dilation = o.dilation, .groups = o.groups,
                        .bias = bias}));
  if (o.norm) push_back(nn::BatchNorm2d(out_channels));
  if (auto act = make_activation(o.activation, true)) push_back(act);
}

SqueezeExcitation::SqueezeExcitation(std::int64_t input_channels, std::int64_t squeeze_channels,
                                     Activation activation_, Activation scale_activation_,
                                     bool activation_inplace)
    : fc1(input_channels, squeeze_channels, {1, 1}),
      fc2(squeeze_channels, input_channels, {1, 1}),
      activation(make_activation(activation_, activation_inplace)),
      scale_activation(make_activation(scale_activation_, false)) {
  if (!activation || !scale_activation)
    throw ValueError("SqueezeExcitation: activation and scale_activation cannot be None");
  register_module("avgpool", avgpool);
  register_module("fc1", fc1);
  register_module("fc2", fc2);
  register_module("activation", activation);
  register_module("scale_activation", scale_activation);
}

// SqueezeExcitation::forward is chapter 9's exercise 5 (vision/pieces.hpp): in the answer file.

Tensor stochastic_depth(const Tensor& input, double p, const std::string& mode, bool training) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("stochastic_depth: drop probability has to be between 0 and 1, but got " +
                     nn::detail::py_float(p));
  if (mode != "batch" && mode != "row")
    throw ValueError("stochastic_depth: mode has to be either 'batch' or 'row', but got '" + mode + "'");
  if (!training || p == 0.0) return input;
  const double survival_rate = 1.0 - p;
  Shape size;
  if (mode == "row") {
    size.push_back(input.size(0));
    for (std::int64_t d = 1; d < input.dim(); ++d) size.push_back(1);
  } else {
    for (std::int64_t d = 0; d < input.dim(); ++d) size.push_back(1);
  }
  // One Bernoulli(survival_rate) per row, scaled so that the expectation is the input itself.
  Tensor noise = rand(size, {.dtype = input.dtype()}).lt(scalar_tensor(survival_rate, {.dtype = input.dtype()}))
                     .to(input.dtype());
  if (survival_rate > 0.0) noise = noise / survival_rate;
  return input * noise;
}

StochasticDepth::StochasticDepth(double p_, std::string mode_) : p(p_), mode(std::move(mode_)) {
  stochastic_depth(Tensor(), p, mode, false);  // checks p and mode now, not at the first forward
}

std::string StochasticDepth::extra_repr() const { return "p=" + nn::detail::py_float(p) + ", mode=" + mode; }

}  // namespace kindling::vision::ops
