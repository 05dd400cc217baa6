// BatchNorm1d/2d and LayerNorm: parameters, buffers, the train/eval switch, printing.
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/nn/normalization.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/repr.hpp"

namespace kindling::nn {

BatchNorm::BatchNorm(std::int64_t num_features_, BatchNormOptions opts) : num_features(num_features_), options(opts) {
  if (num_features < 1) throw ValueError("BatchNorm: num_features must be positive, got " + std::to_string(num_features));
  if (options.affine) {
    weight = register_parameter("weight", ones({num_features}));
    bias = register_parameter("bias", zeros({num_features}));
  }
  if (options.track_running_stats) {
    running_mean = register_buffer("running_mean", zeros({num_features}));
    running_var = register_buffer("running_var", ones({num_features}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, {.dtype = kInt64}));
  }
}

void BatchNorm::reset_running_stats() {
  if (!options.track_running_stats) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void BatchNorm::reset_parameters() {
  reset_running_stats();
  if (options.affine) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

Tensor BatchNorm::forward(const Tensor& x) {
  check_input_dim(x);
  // PyTorch's _BatchNorm.forward: count the batch, pick the averaging factor, and use batch
  // statistics in training (or when there are no running statistics at all).
  double factor = options.momentum.value_or(0.0);
  if (is_training() && options.track_running_stats) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    if (!options.momentum) factor = 1.0 / static_cast<double>(num_batches_tracked.item<std::int64_t>());
  }
  const bool use_batch_stats = is_training() || !running_mean.defined();
  const bool update_running = !is_training() || options.track_running_stats;
  return functional::batch_norm(x, update_running ? running_mean : Tensor(), update_running ? running_var : Tensor(),
                                weight, bias, use_batch_stats, factor, options.eps);
}

std::string BatchNorm::extra_repr() const {
  return std::to_string(num_features) + ", eps=" + detail::py_float(options.eps) +
         ", momentum=" + (options.momentum ? detail::py_float(*options.momentum) : std::string("None")) +
         ", affine=" + detail::py_bool(options.affine) +
         ", track_running_stats=" + detail::py_bool(options.track_running_stats);
}

void BatchNorm1d::check_input_dim(const Tensor& x) const {
  if (x.dim() != 2 && x.dim() != 3)
    throw ShapeError("BatchNorm1d: expected 2D or 3D input (got " + std::to_string(x.dim()) + "D input, shape " +
                     shape_str(x.shape()) + ")");
}

void BatchNorm2d::check_input_dim(const Tensor& x) const {
  if (x.dim() != 4)
    throw ShapeError("BatchNorm2d: expected 4D input [N, C, H, W] (got " + std::to_string(x.dim()) + "D input, shape " +
                     shape_str(x.shape()) + "). Hint: BatchNorm1d is for [N, C] and [N, C, L].");
}

LayerNorm::LayerNorm(Shape shape, LayerNormOptions opts) : normalized_shape(std::move(shape)), options(opts) {
  if (normalized_shape.empty()) throw ValueError("LayerNorm: normalized_shape must have at least one dimension");
  if (options.elementwise_affine) {
    weight = register_parameter("weight", ones(normalized_shape));
    bias = register_parameter("bias", zeros(normalized_shape));
  }
}

Tensor LayerNorm::forward(const Tensor& x) {
  return functional::layer_norm(x, normalized_shape, weight, bias, options.eps);
}

std::string LayerNorm::extra_repr() const {
  return detail::py_tuple(normalized_shape) + ", eps=" + detail::py_float(options.eps) +
         ", elementwise_affine=" + detail::py_bool(options.elementwise_affine);
}

}  // namespace kindling::nn
