#pragma once
/// @file
/// Gradient clipping (PyTorch's `torch.nn.utils.clip_grad_norm_` and `clip_grad_value_`): the
/// usual repair for exploding gradients, called between `loss.backward()` and `optimizer.step()`.
#include <limits>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::nn::utils {

/// The norm order of the largest absolute value (`norm_type = inf`).
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// Scales the gradients of `parameters` together so that their total norm -- the `norm_type`-norm
/// of the vector of every gradient element -- is at most `max_norm`:
///     total = || (||g_1||, ||g_2||, ...) ||,   g_i *= min(1, max_norm / (total + 1e-6)).
/// Parameters without a gradient are skipped. Returns the total norm *before* clipping (a 0-d
/// tensor, the gradients' dtype), the number to log: norms above ~100 are exploding gradients.
/// `norm_type`: any p > 0, or kInf (max |g|). `error_if_nonfinite`: throw instead of scaling by a
/// NaN or Inf norm (which would turn every gradient into NaN).
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps every gradient element of `parameters` into [-clip_value, clip_value], in place.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

}  // namespace kindling::nn::utils
