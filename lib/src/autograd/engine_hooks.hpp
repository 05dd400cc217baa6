#pragma once
// What the engine calls when a node carries hooks or anomaly mode is on (hooks.cpp,
// anomaly_mode.cpp). Neither runs in a plain backward: the engine tests one pointer / one flag.
#include "kindling/autograd/node.hpp"

namespace kindling::autograd {

/// Runs the node's tensor hooks on the gradients coming into it; a defined result replaces one.
void run_pre_hooks(const Node& node, Grads& grads);
/// A leaf's post-accumulate hooks, after its AccumulateGrad added into .grad.
void run_post_accumulate_hooks(const Node& node);
/// Anomaly mode: throws AnomalyError when a gradient the node returned holds a NaN or an Inf.
void check_backward_outputs(const Node& node, const Grads& grads);
/// Anomaly mode with check_forward: throws AnomalyError when a recorded result holds NaN or Inf.
void check_forward_output(const Node& node, const Tensor& out, std::size_t index);
/// Counts NaN and infinite elements of a floating-point tensor (any layout, any float dtype).
struct NonFinite {
  std::int64_t nan = 0, inf = 0;
};
NonFinite count_non_finite(const Tensor& t);

}  // namespace kindling::autograd
