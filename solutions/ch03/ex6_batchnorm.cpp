// ex6 — BatchNorm1d: normalise with batch statistics while training and keep running averages of them
// (in place, outside the autograd graph) for evaluation.
#include "ch03/module_exercises.hpp"

namespace kindling::exercises::ch03 {

BatchNorm1d::BatchNorm1d(std::int64_t num_features_, double eps_, double momentum_)
    : num_features(num_features_), eps(eps_), momentum(momentum_) {
  // BEGIN SOLUTION ex6: register weight (ones), bias (zeros); buffers running_mean, running_var, num_batches_tracked
  weight = register_parameter("weight", ones({num_features}));
  bias = register_parameter("bias", zeros({num_features}));
  running_mean = register_buffer("running_mean", zeros({num_features}));
  running_var = register_buffer("running_var", ones({num_features}));
  num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, {.dtype = kInt64}));
  // END SOLUTION
}

Tensor BatchNorm1d::forward(const Tensor& x) {
  // BEGIN SOLUTION ex6: batch stats in train (update running stats under NoGradGuard), running stats in eval
  if (x.dim() != 2) {
    throw ShapeError("BatchNorm1d: expected a 2-D input [N, C] but got shape " + shape_str(x.shape()));
  }
  Tensor mean, var;  // [C] each
  if (is_training()) {
    mean = x.mean(0);                                    // [C]
    var = x.var(0, /*keepdim=*/false, /*correction=*/0);  // biased: divide by N
    NoGradGuard no_grad;  // the running averages are statistics, not part of the graph
    const double n = static_cast<double>(x.size(0));
    Tensor unbiased = var.detach() * (n / (n - 1.0));   // divide by N - 1
    running_mean.mul_(1.0 - momentum).add_(mean.detach() * momentum);
    running_var.mul_(1.0 - momentum).add_(unbiased * momentum);
    num_batches_tracked.add_(1);
  } else {
    mean = running_mean;
    var = running_var;
  }
  // [N, C] - [C] broadcasts over the batch.
  return (x - mean) / (var + eps).sqrt() * weight + bias;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch03
