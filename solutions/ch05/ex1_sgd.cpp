// ch05.ex1 — the SGD update of one parameter: p -= lr * d, with weight decay and (Nesterov) momentum.
//
// SGD::step() calls it for every parameter that has a gradient (lib/src/train/optim/sgd.cpp), under
// NoGradGuard. Declared in lib/src/train/pieces.hpp.
#include "train/pieces.hpp"

#include "kindling/tensor/error.hpp"

namespace kindling::optim::detail {
// BEGIN SOLUTION ex1: the fused loops
namespace {

// One fused loop per parameter: no temporaries, the same arithmetic order as torch.optim.SGD.
// One loop per (momentum, nesterov, weight decay) combination: no per-element test of a pointer
// that may be null (see adam.cpp for why that matters on AMD CPUs).
template <class T, bool Momentum, bool Nesterov, bool L2>
void sgd_loop(T* __restrict p, const T* __restrict g, T* __restrict buf, std::int64_t n, const SGDOptions& o,
              bool first_step) {
  const T wd = static_cast<T>(o.weight_decay), mom = static_cast<T>(o.momentum);
  const T damp = static_cast<T>(1 - o.dampening), lr = static_cast<T>(o.lr);
  const T sign = o.maximize ? T(-1) : T(1);  // negation is exact
  for (std::int64_t i = 0; i < n; ++i) {
    T d = sign * g[i];
    if constexpr (L2) d = d + wd * p[i];
    if constexpr (Momentum) {
      const T b = first_step ? d : buf[i] * mom + damp * d;  // the first step copies d (torch.clone)
      buf[i] = b;
      if constexpr (Nesterov) d = d + mom * b;
      else d = b;
    }
    p[i] = p[i] - lr * d;
  }
}

template <class T>
void sgd_update(T* p, const T* g, T* buf, std::int64_t n, const SGDOptions& o, bool first_step) {
  const bool l2 = o.weight_decay != 0;
  if (!buf) {
    if (l2) sgd_loop<T, false, false, true>(p, g, buf, n, o, first_step);
    else sgd_loop<T, false, false, false>(p, g, buf, n, o, first_step);
  } else if (o.nesterov) {
    if (l2) sgd_loop<T, true, true, true>(p, g, buf, n, o, first_step);
    else sgd_loop<T, true, true, false>(p, g, buf, n, o, first_step);
  } else {
    if (l2) sgd_loop<T, true, false, true>(p, g, buf, n, o, first_step);
    else sgd_loop<T, true, false, false>(p, g, buf, n, o, first_step);
  }
}

}  // namespace
// STUB
// END SOLUTION

void sgd_step(const Tensor& p, const Tensor& g, const Tensor& buf, const SGDOptions& o, bool first_step) {
  // BEGIN SOLUTION ex1: d = g (+ weight decay), momentum into buf, then p -= lr * d
  if (p.dtype() == kFloat32) {
    sgd_update(p.data_ptr<float>(), g.data_ptr<float>(), buf.defined() ? buf.data_ptr<float>() : nullptr,
               p.numel(), o, first_step);
  } else {
    sgd_update(p.data_ptr<double>(), g.data_ptr<double>(), buf.defined() ? buf.data_ptr<double>() : nullptr,
               p.numel(), o, first_step);
  }
  // END SOLUTION
}

}  // namespace kindling::optim::detail
