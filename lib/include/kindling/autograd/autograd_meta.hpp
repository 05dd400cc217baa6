#pragma once
/// @file
/// What autograd knows about one tensor. Chapter 1's TensorImpl is a plain array with one pointer,
/// `autograd_meta`, null for the many tensors that never take part in autograd; this layer puts an
/// AutogradMeta behind it for leaves that require grad and for every tensor a recorded op produces.
#include <cstdint>
#include <memory>

#include "kindling/tensor/small_object_pool.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::autograd {

class Node;
struct NodeHooks;

/// What zero_grad left on a leaf (zero_grad_in_place): the .grad it zeroed, and that tensor's storage
/// version right after. While .grad is still that tensor at that version, it holds nothing but zeros.
struct ZeroedGrad {
  std::weak_ptr<TensorImpl> grad;
  std::uint64_t version = 0;
};

struct AutogradMeta final : AutogradMetaInterface {
  AutogradMeta() { is_full = true; }
  // The two small fields first: they fit beside the base's two flags, so an AutogradMeta stays
  // within its 96-byte pool class (one per recorded result: a 10,000-op graph makes 10,000).
  /// Which output of grad_fn this tensor is (max(dim) has two).
  std::uint32_t output_nr = 0;
  /// A non-leaf that called retain_grad() keeps its gradient in `grad` too.
  bool retains_grad = false;
  /// The accumulated gradient (`x.grad()`); undefined until a backward reaches the tensor.
  Tensor grad;
  /// The node that made this tensor (`y.grad_fn()`), null for a leaf.
  std::shared_ptr<Node> grad_fn;
  /// A leaf's AccumulateGrad node, shared by every op that reads the leaf. Held weakly: the node
  /// holds the leaf, and the graph (not the leaf) decides how long the node lives.
  std::weak_ptr<Node> grad_accumulator;
  /// A leaf's tensor hooks (register_hook): shared with its AccumulateGrad, which may come and go.
  std::shared_ptr<NodeHooks> leaf_hooks;
  /// Set by zero_grad_in_place (a leaf whose .grad zero_grad zeroed in place), null otherwise.
  std::unique_ptr<ZeroedGrad> zeroed;

  bool is_leaf() const override { return grad_fn == nullptr; }

  // Every recorded result gets one: from the small-object pool, not malloc (small_object_pool.hpp).
  static void* operator new(std::size_t n) {
    return n <= kindling::detail::kPoolMaxBytes ? kindling::detail::pool_allocate(n) : ::operator new(n);
  }
  static void operator delete(void* p, std::size_t n) noexcept {
    if (n <= kindling::detail::kPoolMaxBytes) kindling::detail::pool_release(p, n);
    else ::operator delete(p);
  }
};

/// The tensor's AutogradMeta, or null when it has none (it requires no grad and was not recorded).
AutogradMeta* autograd_meta(const Tensor& t);
/// The tensor's AutogradMeta, created if missing (requires_grad stays as it was).
AutogradMeta& materialize_autograd_meta(const Tensor& t);

/// zero_grad without set_to_none, for one leaf (Optimizer::zero_grad, Module::zero_grad): zeroes its
/// .grad in place, as PyTorch 1.13 does, and remembers that it did. The next backward can then
/// *write* the leaf's gradient instead of adding it to zeros (AccumulateGrad, node.cpp).
void zero_grad_in_place(const Tensor& leaf);
/// True while `meta.grad` holds only the zeros zero_grad_in_place wrote (no write since).
bool grad_is_zeroed(const AutogradMeta& meta);

}  // namespace kindling::autograd
