// Double backward of the activations: the Kindling twin of every case in ch03_double.py.
#include <kindling/autograd.hpp>
#include <kindling/nn.hpp>

#include "parity.hpp"

namespace kd = kindling;
namespace F = kindling::nn::functional;
using kd::Tensor;

namespace {
Tensor grad_of(const Tensor& y, const Tensor& x) {
  return kd::autograd::grad({y}, {x}, {}, {.create_graph = true})[0];
}
}  // namespace

PARITY_CASE("double/gelu") { return grad_of((F::gelu(in["x"]) * in["w"]).sum(), in["x"]); }
PARITY_CASE("double/gelu-tanh") { return grad_of((F::gelu(in["x"], "tanh") * in["w"]).sum(), in["x"]); }
PARITY_CASE("double/silu") { return grad_of((F::silu(in["x"]) * in["w"]).sum(), in["x"]); }
PARITY_CASE("double/elu") { return grad_of((F::elu(in["x"], 0.7) * in["w"]).sum(), in["x"]); }
PARITY_CASE("double/softplus") { return grad_of((F::softplus(in["x"], 2.0, 1.5) * in["w"]).sum(), in["x"]); }
PARITY_CASE("double/leaky-relu") { return grad_of((F::leaky_relu(in["x"], 0.2) * in["w"]).sum(), in["x"]); }
PARITY_CASE("penalty/mlp-gelu-silu") {
  const Tensor& x = in["x"];
  return grad_of(F::silu(F::gelu(x.matmul(in["w1"])).matmul(in["w2"])).sum(), x).pow(2).sum();
}
PARITY_CASE("double/layer-norm") {
  return grad_of((F::layer_norm(in["x"], {3, 4}, in["w"], in["b"]) * in["v"]).sum(), in["x"]);
}
PARITY_CASE("double/layer-norm-weight-grad") {
  return grad_of((F::layer_norm(in["x"], {4}, in["w"]) * in["v"]).sum(), in["w"]).pow(2);
}
PARITY_CASE("penalty/layer-norm-no-affine") {
  const Tensor& x = in["x"];
  return grad_of(F::layer_norm(x.matmul(in["w"]), {5}).pow(3).sum(), x).pow(2).sum();
}
PARITY_CASE("double/batch-norm-train") {
  const Tensor y = F::batch_norm(in["x"], Tensor(), Tensor(), in["w"], in["b"], true);
  return grad_of((y * in["v"]).pow(2).sum(), in["x"]);
}
PARITY_CASE("double/batch-norm-eval") {
  return grad_of(F::batch_norm(in["x"], in["rm"], in["rv"], in["w"], in["b"]).pow(3).sum(), in["x"]);
}
namespace {
Tensor pooled_penalty(const Tensor& x, const Tensor& w, Tensor (*pool)(const Tensor&)) {
  return grad_of(pool(x * w).pow(2).sum(), w);
}
}  // namespace
PARITY_CASE("double/max-pool-2x2") {
  return pooled_penalty(in["x"], in["w"], [](const Tensor& t) { return F::max_pool2d(t, 2); });
}
PARITY_CASE("double/max-pool-3x3-stride-2-pad-1") {
  return pooled_penalty(in["x"], in["w"], [](const Tensor& t) { return F::max_pool2d(t, 3, 2, 1); });
}
PARITY_CASE("double/avg-pool-3x3-stride-2-pad-1") {
  return pooled_penalty(in["x"], in["w"], [](const Tensor& t) { return F::avg_pool2d(t, 3, 2, 1); });
}
PARITY_CASE("double/adaptive-avg-pool") {
  return pooled_penalty(in["x"], in["w"], [](const Tensor& t) { return F::adaptive_avg_pool2d(t, {2, 3}); });
}
namespace {
Tensor conv_penalty(const Tensor& x, const Tensor& w, const Tensor& b, F::IntPair stride, F::IntPair padding,
                    F::IntPair dilation, std::int64_t groups) {
  const Tensor y = F::leaky_relu(F::conv2d(x, w, b, stride, padding, dilation, groups), 0.2);
  return grad_of(y.pow(2).sum(), x).pow(2).sum();
}
}  // namespace
PARITY_CASE("penalty/conv2d-plain") { return conv_penalty(in["x"], in["w"], in["b"], 1, 0, 1, 1); }
PARITY_CASE("penalty/conv2d-stride-2-pad-1") { return conv_penalty(in["x"], in["w"], in["b"], 2, 1, 1, 1); }
PARITY_CASE("penalty/conv2d-dilation-2-stride-3x2") {
  return conv_penalty(in["x"], in["w"], in["b"], F::IntPair{3, 2}, F::IntPair{2, 1}, 2, 1);
}
PARITY_CASE("penalty/conv2d-groups-2") { return conv_penalty(in["x"], in["w"], in["b"], 1, 1, 1, 2); }
PARITY_CASE("double/conv2d-weight-grad") {
  return grad_of(F::conv2d(in["x"], in["w"], Tensor(), 2, 1).pow(2).sum(), in["w"]);
}
namespace {
Tensor upsample_penalty(const Tensor& x, const Tensor& w, const F::InterpolateOptions& o) {
  return grad_of(F::interpolate(x * w, o).pow(2).sum(), w);
}
}  // namespace
PARITY_CASE("double/upsample-nearest") {
  return upsample_penalty(in["x"], in["w"], {.scale_factor = {2}, .mode = "nearest"});
}
PARITY_CASE("double/upsample-bilinear") {
  return upsample_penalty(in["x"], in["w"], {.size = {5, 7}, .mode = "bilinear"});
}
PARITY_CASE("double/upsample-bilinear-align-corners") {
  return upsample_penalty(in["x"], in["w"], {.scale_factor = {1.5}, .mode = "bilinear", .align_corners = true});
}
PARITY_CASE("double/embedding") {
  return grad_of((F::embedding(in["i"], in["w"]) * in["v"]).pow(2).sum(), in["w"]).pow(2);
}
PARITY_CASE("penalty/conv-transpose2d") {
  const Tensor& x = in["x"];
  const Tensor y = F::conv_transpose2d(x, in["w"], in["b"], 2, 1, 1, 2);
  return grad_of(F::leaky_relu(y, 0.2).pow(2).sum(), x).pow(2).sum();
}
PARITY_CASE("double/conv-transpose2d-weight-grad") {
  const Tensor y = F::conv_transpose2d(in["x"], in["w"], Tensor(), F::IntPair{1, 2}, 0, 0, 1, F::IntPair{2, 1});
  return grad_of(y.pow(2).sum(), in["w"]);
}
