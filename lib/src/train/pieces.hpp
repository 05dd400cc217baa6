#pragma once
/// @file
/// Chapter 5's exercise pieces: the parts of the training layer that *you* write (exercises/ch05/).
/// Declared here or in a public header named below, called by the library, defined in your
/// `exercises/ch05/exK_*.cpp` or the reference `solutions/ch05/exK_*.cpp`.
///
///   ex1  optim::detail::sgd_step                  the update of every parameter in SGD::step()
///   ex2  optim::detail::adam_step                 the update of every parameter in Adam/AdamW::step()
///   ex3  ReduceLROnPlateau::step, is_better       (kindling/optim/lr_scheduler.hpp)
///   ex4  train::count_correct                     (kindling/train/metrics.hpp; accuracy() uses it)
///
/// The optimizers do the bookkeeping around a piece: they skip parameters without a gradient, make the
/// gradient contiguous and of the parameter's dtype, allocate the state (momentum buffer, m, v) and count
/// steps, and run everything under NoGradGuard, so the piece only updates numbers in place.
#include <cstdint>

#include "kindling/optim/adam.hpp"
#include "kindling/optim/sgd.hpp"

namespace kindling::optim::detail {

/// One SGD step of one parameter, in place, in torch.optim.SGD's order of operations:
///   d = g (negated when o.maximize) + o.weight_decay * p
///   with momentum:  buf = d on the first step, else buf = o.momentum * buf + (1 - o.dampening) * d;
///                   d = d + o.momentum * buf (o.nesterov) or d = buf
///   p = p - o.lr * d
/// p and g: contiguous, same shape and floating dtype. buf: undefined when o.momentum == 0; on the first
/// step (first_step) it is freshly allocated and holds garbage.
void sgd_step(const Tensor& p, const Tensor& g, const Tensor& buf, const SGDOptions& o, bool first_step);

/// One Adam (decoupled == false) or AdamW (decoupled == true) step of one parameter, in place, in
/// torch.optim.Adam's order of operations; `step` is this parameter's step count, already incremented
/// (1 on the first step):
///   g = g (negated when o.maximize), + o.weight_decay * p for Adam;  p = p * (1 - lr * wd) for AdamW
///   m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g²;   vmax = max(vmax, v) when o.amsgrad (use it for v)
///   p = p - lr / (1 - b1^step) * m / (sqrt(v) / sqrt(1 - b2^step) + eps)
/// p, g, m, v (and vmax, undefined unless o.amsgrad): contiguous, same shape and floating dtype.
void adam_step(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, const Tensor& vmax,
               const AdamOptions& o, std::int64_t step, bool decoupled);

}  // namespace kindling::optim::detail
