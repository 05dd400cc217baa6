// Chapter 7 parity: the Kindling twin of every case in ch07_debug.py.
#include <kindling/debug.hpp>

#include <cmath>

#include "parity.hpp"

namespace {
using kd::Tensor;
namespace utils = kd::nn::utils;

parity::Outputs clipped(parity::Inputs& in, double max_norm, double norm_type = 2.0,
                        bool error_if_nonfinite = false, bool plant_inf = false) {
  Tensor w1 = in["w1"].clone().requires_grad_(), w2 = in["w2"].clone().requires_grad_();
  w1.set_grad(in["g1"].clone());
  w2.set_grad(in["g2"].clone());
  if (plant_inf) w1.grad().data_ptr<float>()[0] = INFINITY;
  Tensor total = utils::clip_grad_norm_({w1, w2}, max_norm, norm_type, error_if_nonfinite);
  return {total, w1.grad(), w2.grad()};
}

kd::nn::Linear linear(parity::Inputs& in) {
  kd::nn::Linear fc(in["w"].size(1), in["w"].size(0));
  kd::NoGradGuard no_grad;
  fc.weight.copy_(in["w"]);
  fc.bias.copy_(in["b"]);
  return fc;
}
}  // namespace

PARITY_CASE("clip-grad-norm/l2-clips") { return clipped(in, 0.5); }
PARITY_CASE("clip-grad-norm/l2-below-max") { return clipped(in, 100.0); }
PARITY_CASE("clip-grad-norm/l1") { return clipped(in, 1.0, 1.0); }
PARITY_CASE("clip-grad-norm/p3") { return clipped(in, 0.7, 3.0); }
PARITY_CASE("clip-grad-norm/inf") { return clipped(in, 0.3, utils::kInf); }
PARITY_CASE("clip-grad-norm/float64") { return clipped(in, 0.5); }
PARITY_CASE("clip-grad-norm/nonfinite-error") { return clipped(in, 1.0, 2.0, true, true); }

PARITY_CASE("clip-grad-value/0.3") {
  Tensor w1 = in["w1"].clone().requires_grad_();
  w1.set_grad(in["g1"].clone());
  utils::clip_grad_value_({w1}, 0.3);
  return w1.grad();
}

PARITY_CASE("tensor-hook/non-leaf") {
  Tensor y = in["x"].tanh();
  y.register_hook([](const Tensor& g) { return g * 3.0 + 1.0; });
  return y * 2.0;
}
PARITY_CASE("tensor-hook/leaf") {
  in["x"].register_hook([](const Tensor& g) { return g.clamp(-0.1, 0.1); });
  return in["x"].exp();
}
PARITY_CASE("tensor-hook/removed") {
  Tensor y = in["x"].sin();
  y.register_hook([](const Tensor& g) { return g * 100.0; }).remove();
  return y * y;
}

PARITY_CASE("module-hook/forward-pre-and-post") {
  kd::nn::Linear fc = linear(in);
  fc.register_forward_pre_hook([](kd::nn::Module&, const Tensor& x) { return x * 2.0; });
  fc.register_forward_hook(
      [](kd::nn::Module&, const Tensor& x, const Tensor& out) { return out + x.sum(); });
  return fc(in["x"]);
}

PARITY_CASE("module-hook/full-backward") {
  kd::nn::Linear fc = linear(in);
  Tensor x = in["x"].clone().requires_grad_();
  Tensor gi, go;
  fc.register_full_backward_hook([&](kd::nn::Module&, const Tensor& grad_in, const Tensor& grad_out) {
    gi = grad_in.clone();
    go = grad_out.clone();
    return grad_in * 0.5;
  });
  (fc(x).tanh() * in["up"]).sum().backward();
  return {gi, go, x.grad(), fc.weight.grad(), fc.bias.grad()};
}
