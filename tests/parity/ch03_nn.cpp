// Chapter 3 parity: the Kindling twin of every case in ch03_nn.py.
#include <kindling/nn.hpp>

#include "parity.hpp"

namespace F = kindling::nn::functional;
namespace kd = kindling;
using kd::Tensor;

// ---- linear -------------------------------------------------------------------------------------
PARITY_CASE("linear/basic") { return F::linear(in["x"], in["w"], in["b"]); }
PARITY_CASE("linear/no-bias") { return F::linear(in["x"], in["w"]); }
PARITY_CASE("linear/3d-input") { return F::linear(in["x"], in["w"], in["b"]); }
PARITY_CASE("linear/float64") { return F::linear(in["x"], in["w"], in["b"]); }
PARITY_CASE("linear/bad-in-features") { return F::linear(in["x"], in["w"]); }

// ---- conv2d -------------------------------------------------------------------------------------
PARITY_CASE("conv2d/basic") { return F::conv2d(in["x"], in["w"], in["b"]); }
PARITY_CASE("conv2d/padding") { return F::conv2d(in["x"], in["w"], in["b"], 1, 2); }
PARITY_CASE("conv2d/stride-dilation") { return F::conv2d(in["x"], in["w"], Tensor(), {2, 1}, {1, 0}, {1, 2}); }
PARITY_CASE("conv2d/groups") { return F::conv2d(in["x"], in["w"], in["b"], 1, 1, 1, 2); }
PARITY_CASE("conv2d/transposed-input") { return F::conv2d(in["x"].transpose(2, 3), in["w"]); }
PARITY_CASE("conv2d/float64") { return F::conv2d(in["x"], in["w"], in["b"], 2, 1); }
PARITY_CASE("conv2d/flat-taps-cnn-shape") { return F::conv2d(in["x"], in["w"], in["b"], 1, 1); }
PARITY_CASE("conv2d/flat-taps-rect-dilation") { return F::conv2d(in["x"], in["w"], Tensor(), 1, {1, 4}, {1, 2}); }
PARITY_CASE("conv2d/flat-taps-one-row") { return F::conv2d(in["x"], in["w"], Tensor(), 1, 2); }
PARITY_CASE("conv2d/channel-mismatch") { return F::conv2d(in["x"], in["w"]); }
PARITY_CASE("conv2d/batched-gemm-last-group-short") { return F::conv2d(in["x"], in["w"], in["b"], 1, 1); }
PARITY_CASE("conv2d/batched-gemm-strided-groups") { return F::conv2d(in["x"], in["w"], in["b"], 2, 1, 1, 2); }

// ---- pooling ------------------------------------------------------------------------------------
PARITY_CASE("max_pool2d/basic") { return F::max_pool2d(in["x"], 2); }
PARITY_CASE("max_pool2d/ties-nan") { return F::max_pool2d(in["x"], 2); }
PARITY_CASE("max_pool2d/ties-nan-general") { return F::max_pool2d(in["x"], 3, 1, 1); }
PARITY_CASE("max_pool2d/odd-size") { return F::max_pool2d(in["x"], 2); }
PARITY_CASE("max_pool2d/2x2-long-rows-edges") { return F::max_pool2d(in["x"], 2); }
PARITY_CASE("max_pool2d/2x2-odd-size-edges") { return F::max_pool2d(in["x"], 2); }
PARITY_CASE("max_pool2d/stride-padding-ceil") { return F::max_pool2d(in["x"], 3, 2, 1, 1, true); }
PARITY_CASE("max_pool2d/rect-dilation") { return F::max_pool2d(in["x"], {2, 3}, 1, 0, {2, 1}); }
PARITY_CASE("avg_pool2d/basic") { return F::avg_pool2d(in["x"], 2); }
PARITY_CASE("avg_pool2d/padding-count-pad") { return F::avg_pool2d(in["x"], 3, 2, 1); }
PARITY_CASE("avg_pool2d/ceil-exclude-pad") { return F::avg_pool2d(in["x"], 3, 2, 1, true, false); }
PARITY_CASE("adaptive_avg_pool2d/uneven") { return F::adaptive_avg_pool2d(in["x"], {3, 4}); }
PARITY_CASE("adaptive_avg_pool2d/global") { return F::adaptive_avg_pool2d(in["x"], 1); }
PARITY_CASE("adaptive_avg_pool2d/upsample") { return F::adaptive_avg_pool2d(in["x"], {4, 5}); }

// ---- normalisation ------------------------------------------------------------------------------
PARITY_CASE("batch_norm/train-2d-running-stats") {
  Tensor rm = in["rm"], rv = in["rv"];
  std::vector<Tensor> outs;
  for (int i = 0; i < 3; ++i) outs.push_back(F::batch_norm(in["x"][i], rm, rv, in["w"], in["b"], true, 0.1, 1e-5));
  outs.push_back(rm);
  outs.push_back(rv);
  return outs;
}
PARITY_CASE("batch_norm/train-1d") { return F::batch_norm(in["x"], Tensor(), Tensor(), in["w"], in["b"], true); }
PARITY_CASE("batch_norm/train-1d-3d-input") {
  return F::batch_norm(in["x"], Tensor(), Tensor(), in["w"], in["b"], true);
}
PARITY_CASE("batch_norm/eval") { return F::batch_norm(in["x"], in["rm"], in["rv"], in["w"], in["b"], false, 0.1, 1e-3); }
PARITY_CASE("batch_norm/train-empty-batch") {
  Tensor rm = in["rm"], rv = in["rv"];
  return std::vector<Tensor>{F::batch_norm(in["x"], rm, rv, in["w"], in["b"], true, 0.1), rm, rv};
}
PARITY_CASE("batch_norm/train-one-value-per-channel") {
  return F::batch_norm(in["x"], Tensor(), Tensor(), Tensor(), Tensor(), true);
}
PARITY_CASE("batch_norm/no-affine-float64") { return F::batch_norm(in["x"], Tensor(), Tensor(), Tensor(), Tensor(), true); }
PARITY_CASE("layer_norm/last-dim") { return F::layer_norm(in["x"], {6}, in["w"], in["b"]); }
PARITY_CASE("layer_norm/two-dims") { return F::layer_norm(in["x"], {3, 4}, in["w"], in["b"], 1e-6); }
PARITY_CASE("layer_norm/no-affine") { return F::layer_norm(in["x"], {8}); }
PARITY_CASE("layer_norm/bad-shape") { return F::layer_norm(in["x"], {5}); }

// ---- embedding, activations ---------------------------------------------------------------------
PARITY_CASE("embedding/basic") { return F::embedding(in["i"], in["w"]); }
PARITY_CASE("embedding/repeated") { return F::embedding(in["i"], in["w"]); }
PARITY_CASE("embedding/out-of-range") { return F::embedding(in["i"], in["w"]); }
PARITY_CASE("gelu/exact") { return F::gelu(in["x"]); }
PARITY_CASE("gelu/tanh") { return F::gelu(in["x"], "tanh"); }
PARITY_CASE("gelu/float64") { return F::gelu(in["x"]); }
PARITY_CASE("dropout/eval-is-identity") { return F::dropout(in["x"], 0.5, false); }
PARITY_CASE("softmax/layer") { return kindling::nn::Softmax(1)(in["x"]); }
PARITY_CASE("log_softmax/layer") { return kindling::nn::LogSoftmax(-1)(in["x"]); }
PARITY_CASE("flatten/layer") { return kindling::nn::Flatten()(in["x"]); }

// ---- a whole model with the same weights --------------------------------------------------------
PARITY_CASE("model/small-cnn") {
  Tensor rm = in["rm"], rv = in["rv"];
  Tensor h = F::conv2d(in["x"], in["cw"], in["cb"], 1, 1);
  h = F::batch_norm(h, rm, rv, in["bw"], in["bb"], true);
  h = F::max_pool2d(F::relu(h), 2);
  return {F::linear(h.flatten(1), in["lw"], in["lb"]), rm, rv};
}

// ---- activations with a parameter (issue 18) ----------------------------------------------------
PARITY_CASE("leaky_relu/default") { return F::leaky_relu(in["x"]); }
PARITY_CASE("leaky_relu/slope-edges") { return F::leaky_relu(in["x"], 0.2); }
PARITY_CASE("leaky_relu/module-transposed") { return kd::nn::LeakyReLU(0.3)(in["x"].t()); }
PARITY_CASE("leaky_relu/0d-float64") { return F::leaky_relu(in["x"], 0.1); }
PARITY_CASE("leaky_relu/int-input") { return F::leaky_relu(in["x"]); }
PARITY_CASE("silu/basic") { return F::silu(in["x"]); }
PARITY_CASE("silu/edges") { return kd::nn::SiLU()(in["x"]); }
PARITY_CASE("silu/strided-float64") { return F::silu(in["x"].slice(1, 0, 8, 2)); }
PARITY_CASE("silu/empty") { return F::silu(in["x"]); }
PARITY_CASE("relu6/basic") { return kd::nn::ReLU6(true)(in["x"]); }
PARITY_CASE("relu6/float64") { return kd::nn::ReLU6()(in["x"]); }
PARITY_CASE("hardswish/basic") { return kd::nn::Hardswish()(in["x"]); }
PARITY_CASE("hardswish/float64") { return kd::nn::Hardswish()(in["x"]); }
PARITY_CASE("relu6/kinks") { return kd::nn::ReLU6()(in["x"]); }
PARITY_CASE("relu6/kinks-float64") { return F::relu6(in["x"]); }
PARITY_CASE("relu6/double-backward") {
  return kd::autograd::grad({F::relu6(in["x"]).sum()}, {in["x"]}, {}, {.create_graph = true})[0];
}
PARITY_CASE("relu6/int64-keeps-dtype") { return kd::nn::ReLU6()(in["x"]); }
PARITY_CASE("relu6/bool-refused") { return kd::nn::ReLU6()(in["x"] > 0.0); }
PARITY_CASE("hardtanh/bounds") { return F::hardtanh(in["x"], -2.0, 3.0); }
PARITY_CASE("hardtanh/int-truncated-bounds") { return F::hardtanh(in["x"], -1.5, 2.5); }
PARITY_CASE("hardtanh/int-bound-overflow") { return F::hardtanh(in["x"], -1e30, 1e30); }
PARITY_CASE("hardswish/int-refused") { return kd::nn::Hardswish()(in["x"]); }
PARITY_CASE("elu/default") { return F::elu(in["x"]); }
PARITY_CASE("elu/alpha-edges") { return kd::nn::ELU(0.5)(in["x"]); }
PARITY_CASE("elu/0d") { return F::elu(in["x"], 2.0); }
PARITY_CASE("elu/expanded-float64") { return F::elu(in["x"].expand({4, 3}), 1.5); }
PARITY_CASE("elu/nan-and-zeros") { return F::elu(in["x"], 0.5); }
PARITY_CASE("elu/nan-double-backward") {
  return kd::autograd::grad({F::elu(in["x"], 0.5).sum()}, {in["x"]}, {}, {.create_graph = true})[0];
}
PARITY_CASE("softplus/default") { return F::softplus(in["x"]); }
PARITY_CASE("softplus/beta-threshold") { return F::softplus(in["x"], 2.0, 5.0); }
PARITY_CASE("softplus/module-large") { return kd::nn::Softplus(0.5, 10)(in["x"]); }
PARITY_CASE("softplus/float64-empty") { return F::softplus(in["x"], 3.0); }
PARITY_CASE("softplus/int-input") { return F::softplus(in["x"]); }

// ---- issue 18's layers --------------------------------------------------------------------------
PARITY_CASE("conv1d/basic") { return F::conv1d(in["x"], in["w"], in["b"]); }
PARITY_CASE("conv1d/stride-padding-dilation") { return F::conv1d(in["x"], in["w"], Tensor(), 2, 2, 2); }
PARITY_CASE("conv1d/groups-unbatched") { return F::conv1d(in["x"], in["w"], in["b"], 1, 1, 1, 2); }
PARITY_CASE("conv1d/transposed-float64") { return F::conv1d(in["x"].transpose(1, 2), in["w"]); }
PARITY_CASE("conv1d/same") { return F::conv1d(in["x"], in["w"], in["b"], 1, "same"); }
PARITY_CASE("conv1d/module-same") {
  kd::nn::Conv1d conv(3, 5, 4, {.padding = "same"});
  conv.load_state_dict({{"weight", in["w"]}, {"bias", in["b"]}});
  return conv(in["x"]);
}
PARITY_CASE("conv1d/same-dilation") { return F::conv1d(in["x"], in["w"], Tensor(), 1, "same", 3); }
PARITY_CASE("conv1d/valid") { return F::conv1d(in["x"], in["w"], Tensor(), 1, "valid"); }
PARITY_CASE("conv1d/channel-mismatch") { return F::conv1d(in["x"], in["w"]); }
PARITY_CASE("conv1d/same-strided") { return F::conv1d(in["x"], in["w"], Tensor(), 2, "same"); }
PARITY_CASE("conv1d/bad-padding-string") { return F::conv1d(in["x"], in["w"], Tensor(), 1, "full"); }
PARITY_CASE("conv2d/same-odd-kernel") { return F::conv2d(in["x"], in["w"], in["b"], 1, "same"); }
PARITY_CASE("conv2d/same-even-kernel") { return F::conv2d(in["x"], in["w"], Tensor(), 1, "same"); }
PARITY_CASE("conv2d/same-dilation-groups") { return F::conv2d(in["x"], in["w"], Tensor(), 1, "same", {2, 1}, 2); }
PARITY_CASE("conv2d/same-unbatched") { return F::conv2d(in["x"], in["w"], Tensor(), 1, "same"); }
PARITY_CASE("conv2d/same-strided") { return F::conv2d(in["x"], in["w"], Tensor(), 2, "same"); }
PARITY_CASE("conv_transpose2d/basic") { return F::conv_transpose2d(in["x"], in["w"], in["b"]); }
PARITY_CASE("conv_transpose2d/stride-padding-output-padding") {
  return F::conv_transpose2d(in["x"], in["w"], in["b"], 2, 1, 1);
}
PARITY_CASE("conv_transpose2d/rect-dilation-groups") {
  return F::conv_transpose2d(in["x"], in["w"], Tensor(), {2, 1}, {0, 1}, 0, 2, {1, 2});
}
PARITY_CASE("conv_transpose2d/unbatched-transposed-float64") {
  return F::conv_transpose2d(in["x"].transpose(1, 2), in["w"], Tensor(), 3);
}
PARITY_CASE("conv_transpose2d/batched-gemm-last-group-short") {
  return F::conv_transpose2d(in["x"], in["w"], in["b"], 2, 1);
}
PARITY_CASE("conv_transpose2d/module") {
  kd::nn::ConvTranspose2d up(4, 2, 2, {.stride = 2});
  up.load_state_dict({{"weight", in["w"]}, {"bias", in["b"]}});
  return up(in["x"]);
}
PARITY_CASE("conv_transpose2d/channel-mismatch") { return F::conv_transpose2d(in["x"], in["w"]); }
PARITY_CASE("conv_transpose2d/output-padding-too-large") {
  return F::conv_transpose2d(in["x"], in["w"], Tensor(), 2, 0, 2);
}
PARITY_CASE("interpolate/nearest-scale2") { return F::interpolate(in["x"], {.scale_factor = {2}}); }
PARITY_CASE("interpolate/nearest-size") { return F::interpolate(in["x"], {.size = {7, 3}}); }
PARITY_CASE("interpolate/nearest-fractional-scale") { return F::interpolate(in["x"], {.scale_factor = {1.5, 0.7}}); }
PARITY_CASE("interpolate/nearest-infinities") { return F::interpolate(in["x"], {.scale_factor = {2}}); }
PARITY_CASE("interpolate/nearest-same-size-infinities") { return F::interpolate(in["x"], {.size = {2, 3}}); }
PARITY_CASE("interpolate/bilinear-scale2") {
  return F::interpolate(in["x"], {.scale_factor = {2}, .mode = "bilinear"});
}
PARITY_CASE("interpolate/bilinear-size-align") {
  return F::interpolate(in["x"], {.size = {7, 9}, .mode = "bilinear", .align_corners = true});
}
PARITY_CASE("interpolate/bilinear-infinity") {
  return F::interpolate(in["x"], {.size = {5, 5}, .mode = "bilinear", .align_corners = true});
}
PARITY_CASE("interpolate/bilinear-same-size-infinity") {
  return F::interpolate(in["x"], {.size = {3, 3}, .mode = "bilinear"});
}
PARITY_CASE("interpolate/bilinear-one-dim-same-size") {
  return F::interpolate(in["x"], {.size = {3, 7}, .mode = "bilinear"});
}
PARITY_CASE("interpolate/bilinear-one-dim-same-size-infinity") {
  return F::interpolate(in["x"], {.scale_factor = {1.0, 1.5}, .mode = "bilinear", .align_corners = true});
}
PARITY_CASE("interpolate/bilinear-downsample") { return F::interpolate(in["x"], {.size = {3, 2}, .mode = "bilinear"}); }
PARITY_CASE("interpolate/bilinear-align-one-pixel") {
  return F::interpolate(in["x"], {.size = {1, 4}, .mode = "bilinear", .align_corners = true});
}
PARITY_CASE("interpolate/bilinear-transposed-float64") {
  return F::interpolate(in["x"].transpose(2, 3), {.scale_factor = {1.7}, .mode = "bilinear"});
}
PARITY_CASE("interpolate/upsample-module") { return kd::nn::Upsample({.scale_factor = {3}})(in["x"]); }
PARITY_CASE("interpolate/upsample-module-bilinear") {
  return kd::nn::Upsample({.size = {5, 5}, .mode = "bilinear", .align_corners = false})(in["x"]);
}
PARITY_CASE("interpolate/nearest-align-corners") {
  return F::interpolate(in["x"], {.scale_factor = {2}, .align_corners = true});
}
PARITY_CASE("interpolate/size-and-scale") { return F::interpolate(in["x"], {.size = {4}, .scale_factor = {2}}); }
PARITY_CASE("interpolate/bilinear-3d") { return F::interpolate(in["x"], {.scale_factor = {2}, .mode = "bilinear"}); }
