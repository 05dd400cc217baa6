#pragma once
/// @file
/// Chapter 7's exercise pieces: the parts of the debug layer that *you* write (exercises/ch07/).
/// Declared here or in a public header named below, defined in your `exercises/ch07/exK_*.cpp` or the
/// reference `solutions/ch07/exK_*.cpp`.
///
///   ex1  nn::utils::detail::clip_total_norm_   the norm and the scaling behind clip_grad_norm_
///   ex2  debug::find_the_bug::train_fast        (kindling/debug/find_the_bug.hpp) the loss becomes NaN
///   ex3  debug::find_the_bug::train_labels      (kindling/debug/find_the_bug.hpp) good loss, bad accuracy
///   ex4  debug::find_the_bug::train_from_scratch (kindling/debug/find_the_bug.hpp) the loss does not move
///   ex5  debug::find_the_bug::train_steady       (kindling/debug/find_the_bug.hpp) zero_grad forgotten
///   ex6  debug::find_the_bug::train_probabilities (kindling/debug/find_the_bug.hpp) softmax before the loss
///   ex7  debug::find_the_bug::evaluate           (kindling/debug/find_the_bug.hpp) eval() forgotten
///   ex8  debug::find_the_bug::train_features     (kindling/debug/find_the_bug.hpp) a detach() cuts the graph
///
/// clip_grad_norm_ (lib/src/debug/clip_grad.cpp) does the bookkeeping around ex1: it checks norm_type
/// and max_norm, skips parameters without a gradient, refuses integer gradients, and hands the piece
/// the gradients themselves (non-empty, floating point, one dtype), so the piece scales them in place.
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::nn::utils::detail {

/// The total norm of `grads` and the clipping, as torch.nn.utils.clip_grad_norm_ computes them:
///   norm_i = || grads[i] ||_p  (p = norm_type; for p = inf the largest |g|)
///   total  = || (norm_1, norm_2, ...) ||_p  (for p = inf the largest norm_i; a NaN wins)
///   total is rounded to the gradients' dtype; with error_if_nonfinite and a NaN/Inf total, throw a
///   ValueError; else every grads[i] *= min(1, max_norm / (total + 1e-6)) (in float32 for float32
///   gradients; a NaN coefficient stays NaN), in place, under NoGradGuard.
/// Returns total as a 0-d tensor of the gradients' dtype.
Tensor clip_total_norm_(const std::vector<Tensor>& grads, double max_norm, double norm_type,
                        bool error_if_nonfinite);

}  // namespace kindling::nn::utils::detail
