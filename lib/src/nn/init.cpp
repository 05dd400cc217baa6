// nn::init: in-place fills drawn from the global generator, under no-grad.
#include "kindling/nn/init.hpp"

#include <cmath>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/random.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"

namespace kindling::nn::init {

namespace {
// Fills `t` with draw(gen) element by element (row-major), whatever its strides, and bumps its version
// like any in-place op. Initialisation is not an operation autograd records. The default generator
// is locked for the whole fill: models built on two threads never tear its state, and each
// tensor's numbers are one unbroken piece of the stream.
template <class Draw> Tensor& fill_with(Tensor& t, const char* op, Draw draw) {
  if (!t.defined()) throw ValueError(std::string("init.") + op + ": the tensor is undefined");
  kindling::detail::check_cpu(t, op);
  NoGradGuard no_grad;
  Tensor values = kindling::detail::make_tensor(t.shape(), kFloat64);
  double* v = values.data_ptr<double>();
  {
    Generator::Draws gen = default_generator().lock();
    for (std::int64_t i = 0, n = values.numel(); i < n; ++i) v[i] = draw(gen);
  }
  t.copy_(values);  // converts to t's dtype, respects its strides, bumps the version
  return t;
}
}  // namespace

double calculate_gain(const std::string& nl, double param) {
  if (nl == "linear" || nl == "conv1d" || nl == "conv2d" || nl == "conv3d" || nl == "conv_transpose1d" ||
      nl == "conv_transpose2d" || nl == "conv_transpose3d" || nl == "sigmoid")
    return 1.0;
  if (nl == "tanh") return 5.0 / 3.0;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") return std::sqrt(2.0 / (1.0 + param * param));
  if (nl == "selu") return 3.0 / 4.0;
  throw ValueError("calculate_gain: unsupported nonlinearity '" + nl +
                   "' (known: linear, conv2d, sigmoid, tanh, relu, leaky_relu, selu)");
}

std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  if (t.dim() < 2) {
    throw ValueError("init: fan in and fan out can not be computed for a tensor with fewer than 2 dimensions (shape " +
                     shape_str(t.shape()) + ")");
  }
  std::int64_t receptive = 1;
  for (std::int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

namespace {
// Random draws fill floating-point tensors only: an integer tensor would silently truncate them.
void need_floating(const Tensor& t, const char* op) {
  if (t.defined() && !t.is_floating_point()) {
    throw DTypeError(std::string("init.") + op + ": draws random floating-point values, so it needs a floating-point "
                     "tensor, not " + dtype_name(t.dtype()) + " (PyTorch: not implemented for that dtype). Hint: "
                     "create the tensor with .dtype = kFloat32, or use constant_");
  }
}
}  // namespace

Tensor& uniform_(Tensor& t, double a, double b) {
  need_floating(t, "uniform_");
  if (!std::isfinite(a) || !std::isfinite(b)) {
    throw ValueError("init.uniform_: the bounds must be finite numbers, got a = " + std::to_string(a) + ", b = " +
                     std::to_string(b) + " (PyTorch: from/to is out of bounds)");
  }
  if (a > b) {
    throw ValueError("init.uniform_: expects a [a, b) range, but found a = " + std::to_string(a) + " > b = " +
                     std::to_string(b) + ". Hint: uniform_(t, low, high)");
  }
  return fill_with(t, "uniform_", [&](Generator::Draws& gen) { return a + (b - a) * gen.uniform(); });
}
Tensor& normal_(Tensor& t, double mean, double std) {
  need_floating(t, "normal_");
  if (!(std >= 0.0)) {  // also refuses NaN
    throw ValueError("init.normal_: expects std >= 0.0, but found std = " + std::to_string(std) +
                     ". Hint: normal_(t, mean, std) takes the standard deviation, not the variance");
  }
  return fill_with(t, "normal_", [&](Generator::Draws& gen) { return mean + std * gen.normal(); });
}
Tensor& constant_(Tensor& t, double value) {
  return fill_with(t, "constant_", [&](Generator::Draws&) { return value; });
}
Tensor& zeros_(Tensor& t) { return constant_(t, 0.0); }
Tensor& ones_(Tensor& t) { return constant_(t, 1.0); }

Tensor& xavier_uniform_(Tensor& t, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  const double a = gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return uniform_(t, -a, a);
}
Tensor& xavier_normal_(Tensor& t, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  return normal_(t, 0.0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)));
}

namespace {
double kaiming_std(const Tensor& t, double a, FanMode mode, const std::string& nl) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  const std::int64_t fan = mode == FanMode::FanIn ? fan_in : fan_out;
  return calculate_gain(nl, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

// A zero-element tensor (Linear(0, k)'s weight) has nothing to fill and may have no fan: a no-op,
// as in PyTorch (which warns "Initializing zero-element tensors is a no-op").
Tensor& kaiming_uniform_(Tensor& t, double a, FanMode mode, const std::string& nl) {
  if (t.defined() && t.numel() == 0) return t;
  const double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nl);
  return uniform_(t, -bound, bound);
}
Tensor& kaiming_normal_(Tensor& t, double a, FanMode mode, const std::string& nl) {
  if (t.defined() && t.numel() == 0) return t;
  return normal_(t, 0.0, kaiming_std(t, a, mode, nl));
}

}  // namespace kindling::nn::init
