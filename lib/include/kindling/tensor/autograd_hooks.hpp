#pragma once
/// @file
/// The seam between chapter 1 and chapter 2. Tensor ops (chapter 1) compute values only; when an
/// input requires grad and grad mode is on, they describe what they just did in an OpRecord and
/// hand it to a recorder that the autograd layer (chapter 2) installs. The recorder looks the op
/// up in its derivative table and attaches a backward node (MulBackward0, ...) to the output.
/// This is PyTorch's "Autograd dispatch key" in miniature: the math never knows about graphs.
#include <cstdint>
#include <string>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::detail {

/// Everything a backward formula may need about one forward call.
struct OpRecord {
  const char* op = "";               // "mul", "sum", "permute", ... (key of the derivative table)
  std::vector<Tensor> inputs;        // the op's tensor inputs, in order
  std::vector<std::int64_t> ints;    // integer arguments: dims, sizes, indices
  std::vector<double> scalars;       // scalar arguments: alpha, exponent, clamp bounds
  bool flag = false;                 // one boolean argument (keepdim, ...)
};

using Recorder = void (*)(OpRecord&& record, std::vector<Tensor>& outputs);

/// Installed by kindling_autograd the first time anything asks for gradients.
void set_recorder(Recorder recorder);
Recorder recorder();

/// Thread-local grad mode (NoGradGuard flips it off for a scope).
bool grad_mode_enabled();
void set_grad_mode_enabled(bool enabled);

/// True when an op over these inputs must be recorded.
inline bool needs_grad(const Tensor& a) {
  return a.defined() && a.impl()->requires_grad && grad_mode_enabled() && recorder() != nullptr;
}
inline bool needs_grad(const Tensor& a, const Tensor& b) {
  return ((a.defined() && a.impl()->requires_grad) || (b.defined() && b.impl()->requires_grad)) &&
         grad_mode_enabled() && recorder() != nullptr;
}
bool needs_grad(const std::vector<Tensor>& inputs);

/// Records `out` as produced by `record` (no-op unless needs_grad). Returns `out` for chaining.
Tensor record(OpRecord&& record, Tensor out);
/// Multi-output form (max(dim) returns values and indices; only floating outputs get grad).
void record(OpRecord&& record, std::vector<Tensor>& outs);

/// Names the backward node of a tensor ("MulBackward0") for printing `grad_fn=<MulBackward0>`.
/// Chapter 1 cannot see the Node class, so the autograd layer installs this when it loads.
using NodeNameFn = std::string (*)(const Tensor& t);
void set_node_name_fn(NodeNameFn fn);
/// The installed function, or nullptr before chapter 2's layer is linked in.
NodeNameFn node_name_fn();

/// Refuses an in-place write that autograd could not account for (a leaf that requires grad
/// while grad mode is on). `op` names the in-place op in the message.
void check_inplace(const Tensor& self, const char* op);

}  // namespace kindling::detail
