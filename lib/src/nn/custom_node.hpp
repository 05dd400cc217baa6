#pragma once
// Internal: how an nn op that is not a composition of tensor ops joins the autograd graph — the C++
// form of subclassing torch.autograd.Function. The op computes its output with its own kernel,
// then, if any input requires grad, attaches a Node subclass (ConvolutionBackward0, ...) whose
// apply() is the hand-written backward:
//
//     Tensor out = ...forward kernel...;
//     if (needs_grad({x, w})) attach(std::make_shared<MyBackward>(edges({x, w}), saved...), out);
#include <memory>
#include <string>
#include <vector>

#include "kindling/autograd/node.hpp"
#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling::nn::detail {

/// True when an op over `inputs` must be recorded (some input requires grad, grad mode is on).
inline bool needs_grad(const std::vector<Tensor>& inputs) {
  if (!kindling::detail::grad_mode_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.impl()->requires_grad) return true;
  return false;
}

/// One edge per input: where that input's gradient goes (invalid for inputs that need none).
inline std::vector<autograd::Edge> edges(const std::vector<Tensor>& inputs) {
  std::vector<autograd::Edge> e;
  e.reserve(inputs.size());
  for (const Tensor& t : inputs) e.push_back(autograd::gradient_edge(t));
  return e;
}

/// Makes `node` the grad_fn of `out` (output 0).
inline void attach(std::shared_ptr<autograd::Node> node, Tensor& out) {
  TensorImpl* impl = out.impl();
  impl->requires_grad = true;
  impl->grad_fn = std::move(node);
  impl->output_nr = 0;
}

/// A tensor saved for backward together with its version, so that modifying it in place between
/// forward and backward is caught (like PyTorch's SavedVariable) instead of giving wrong gradients.
class Saved {
 public:
  Saved() = default;
  explicit Saved(const Tensor& t) : t_(t), version_(t.defined() ? t.version() : 0) {}
  Tensor get(const char* node) const {
    if (t_.defined() && t_.version() != version_) {
      throw AutogradError(std::string(node) +
                          ": one of the variables needed for gradient computation has been modified by an "
                          "inplace operation (version " + std::to_string(t_.version()) + ", expected " +
                          std::to_string(version_) + "). Hint: do not modify the layer's inputs or parameters "
                          "in place between forward and backward.");
    }
    return t_;
  }
  void release() { t_ = Tensor(); }

 private:
  Tensor t_;
  std::uint64_t version_ = 0;
};

/// Base for the nn layer nodes: holds the released flag and a clear error for a second backward.
class LayerNode : public autograd::Node {
 public:
  using autograd::Node::Node;
  void check_not_released() const {
    if (released_) {
      throw AutogradError(std::string(name()) +
                          ": Trying to backward through the graph a second time. Saved intermediate values "
                          "are freed when you call backward(); pass retain_graph=true to the first backward.");
    }
  }
  bool needs_input_grad(std::size_t i) const { return next_functions()[i].is_valid(); }

 protected:
  bool released_ = false;
};

}  // namespace kindling::nn::detail
