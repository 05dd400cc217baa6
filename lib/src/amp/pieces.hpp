#pragma once
/// @file
/// Chapter 6's exercise pieces: the parts of the amp layer that *you* write (exercises/ch06/).
/// Declared here, called by the library, defined in your `exercises/ch06/exK_*.cpp` or the reference
/// `solutions/ch06/exK_*.cpp`.
///
///   ex1  amp::detail::unscale_and_check     GradScaler::unscale_ (and step), for every gradient
///   ex2  amp::detail::update_scale          GradScaler::update, once per iteration
///   ex3  utils::detail::checkpoint_backward the backward of every utils::checkpoint segment
#include <cstdint>
#include <string>
#include <vector>

#include "kindling/amp/checkpoint.hpp"
#include "kindling/autograd/function.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::amp::detail {

/// g *= inv_scale in place (PyTorch's _amp_foreach_non_finite_check_and_unscale_); returns true when
/// some element of g is inf or NaN. Each element is multiplied in float32 (in float64 for a float64
/// gradient) and rounded once to g's dtype; an inv_scale of exactly 1 leaves the values untouched.
/// g: any shape and layout (a non-contiguous view is written through), floating dtype other than
/// float16 (GradScaler refuses those first); an integer or bool g is a DTypeError.
bool unscale_and_check(Tensor& g, float inv_scale);

/// PyTorch's _amp_update_scale_: the scale after one iteration, in float32 arithmetic.
///   found_inf:                       scale = scale * backoff_factor, growth_tracker = 0
///   else, growth_tracker + 1 == growth_interval:
///                                    scale = scale * growth_factor unless that is inf; growth_tracker = 0
///   else:                            ++growth_tracker
void update_scale(float& scale, std::int64_t& growth_tracker, bool found_inf, double growth_factor,
                  double backoff_factor, std::int64_t growth_interval);

}  // namespace kindling::amp::detail

namespace kindling::utils::detail {

/// The backward of a checkpointed segment (torch.utils.checkpoint's reentrant CheckpointFunction):
///   1. fresh leaves, detached from `saved` (the segment's inputs), requiring grad where needs_grad[i];
///   2. fn run again on them with grad mode on -- with the default generator set to `rng_state` first
///      when rng_state is not null, and the generator's state of now put back afterwards, even on an
///      exception;
///   3. a backward (autograd::backward, allowed inside this one by a ReentrantBackwardGuard) from
///      every recomputed output that requires grad and whose grad[i] is defined;
///   4. the result: one gradient per input, the leaf's .grad where it required grad, else undefined.
/// A recomputation that returns a different number of outputs than grad holds is an AutogradError.
autograd::Grads checkpoint_backward(const CheckpointFn& fn, const autograd::Grads& saved,
                                    const std::vector<bool>& needs_grad, const std::string* rng_state,
                                    const autograd::Grads& grad);

}  // namespace kindling::utils::detail
