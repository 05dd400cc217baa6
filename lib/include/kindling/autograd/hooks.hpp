#pragma once
/// @file
/// Hooks on the backward graph. `t.register_hook(fn)` (PyTorch's `Tensor.register_hook`) calls
/// `fn(grad)` when the gradient of `t` has been computed, before it is used; a defined result
/// replaces the gradient. On a non-leaf the hook sits on `t.grad_fn()` (for t's output number),
/// on a leaf it runs before AccumulateGrad adds into `.grad`. Every registration returns a
/// RemovableHandle; `handle.remove()` takes the hook out (PyTorch's `handle.remove()`).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "kindling/autograd/anomaly_mode.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::autograd {

class Node;

/// Removes the hook it was returned for. Copies share the hook; remove() is idempotent, and a
/// handle that goes out of scope leaves its hook in place (as in PyTorch).
class RemovableHandle {
 public:
  RemovableHandle() = default;
  explicit RemovableHandle(std::function<void()> remover);
  void remove();
  /// False after remove() (or for a default-made handle).
  bool active() const { return state_ && *state_; }

 private:
  std::shared_ptr<std::function<void()>> state_;
};

/// A tensor hook: receives the gradient, returns a replacement or an undefined Tensor (keep it).
using TensorHook = std::function<Tensor(const Tensor& grad)>;

/// What a node carries besides its formula, allocated only when needed (one pointer in Node, null
/// in a plain backward: the engine's check is one branch on it).
struct NodeHooks {
  struct PreHook {
    std::uint64_t id;
    std::uint32_t output_nr;  ///< which gradient coming into the node the hook sees
    TensorHook fn;
  };
  std::vector<PreHook> pre_hooks;        ///< tensor hooks, in registration order
  struct PostAccumulateHook {
    std::uint64_t id;
    std::function<void(const Tensor& leaf)> fn;
  };
  /// On a leaf's AccumulateGrad: run after the gradient was added into `.grad`.
  std::vector<PostAccumulateHook> post_accumulate_hooks;
  std::optional<CreationTrace> trace;    ///< anomaly mode: where the node was made
};

/// A hook on a backward node itself (PyTorch 2's `grad_fn.register_prehook`): `fn` sees the
/// gradient that reached output `output_nr` of `node` -- the sum over every use of that output --
/// before the node's formula runs. Tools that watch a whole graph use it (GradientFlow).
RemovableHandle register_prehook(Node& node, TensorHook fn, std::uint32_t output_nr = 0);

/// PyTorch 2.1's `Tensor.register_post_accumulate_grad_hook`: `fn(leaf)` runs each time a
/// backward has added a gradient into `leaf.grad()` (after the addition, so `.grad` is final for
/// this backward): data-parallel training starts averaging a group of gradients from it, while
/// backward goes on. Leaves only.
RemovableHandle register_post_accumulate_grad_hook(const Tensor& leaf, std::function<void(const Tensor& leaf)> fn);

}  // namespace kindling::autograd
