#pragma once
/// @file
/// The backward graph. Every differentiable op that sees an input requiring grad attaches a Node to
/// its output (`y.grad_fn()`); the node remembers what backward needs (saved tensors) and points at
/// the nodes that made its inputs (`next_functions()`). Leaves are represented by an AccumulateGrad
/// node, exactly like PyTorch, so the whole graph can be walked from the loss down to the parameters:
///
///     y = (x * w).sum()        y.grad_fn()                    -> SumBackward0
///                              ->next_functions()[0].function -> MulBackward0
///                              ->next_functions()[0].function -> AccumulateGrad (for x)
///
/// Nodes are written with autograd::Function (function.hpp); this header is the graph they form.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "kindling/tensor/small_vector.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::autograd {

class Node;
struct NodeHooks;  // hooks.hpp: tensor hooks and the anomaly-mode trace

/// Gradients going through one node: one per output of the forward op (into backward), or one per
/// input (out of it). An undefined entry means "no gradient" (as good as zeros).
using Grads = SmallVector<Tensor, 3>;

/// One input of a node, seen from the node: "the gradient for this input goes to output
/// `input_nr` of `function`". A null `function` means the input does not require grad
/// (PyTorch prints it as `(None, 0)`).
struct Edge {
  std::shared_ptr<Node> function;
  std::uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};
using EdgeList = SmallVector<Edge, 2>;

/// The shape and dtype an input had in the forward pass. The engine gives each input's gradient
/// exactly this shape and dtype: a formula may return the gradient for the *broadcast* shape, and
/// the engine sums it back (sum_to), as PyTorch's validate_outputs does.
struct InputMetadata {
  Shape shape;
  DType dtype = kFloat32;
  Device device = kCPU;
};

/// A backward function: gradients w.r.t. its outputs in, gradients w.r.t. its inputs out.
class Node : public std::enable_shared_from_this<Node> {
 public:
  explicit Node(std::uint32_t num_outputs = 1);
  /// Frees the graph behind this node *iteratively*: dropping the last reference to a
  /// 100,000-node chain does not recurse 100,000 levels deep.
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// PyTorch's class name: "MulBackward0", "AccumulateGrad", ...
  virtual const char* name() const = 0;
  /// One edge per tensor input of the forward op, in order.
  const EdgeList& next_functions() const { return next_functions_; }
  /// How many tensors the forward op returned (max(dim) returns two).
  std::uint32_t num_outputs() const { return num_outputs_; }
  /// How many tensor inputs the forward op had (one edge and one InputMetadata each).
  std::size_t num_inputs() const { return next_functions_.size(); }
  const InputMetadata& input_metadata(std::size_t i) const { return input_metadata_[i]; }
  /// Creation order; the engine runs later nodes first when several are ready (like PyTorch).
  std::uint64_t sequence_nr() const { return sequence_nr_; }

  /// Runs the backward formula. `grad_outputs[i]` may be undefined (no gradient reached output i).
  /// Returns one gradient per input (undefined where an input needs none).
  virtual Grads apply(Grads&& grad_outputs) = 0;
  /// Drops the tensors saved for backward (after a backward without retain_graph).
  virtual void release_saved() {}
  /// The tensors this node saved for backward (PyTorch's `grad_fn._saved_self`, ...), for teaching.
  virtual std::vector<Tensor> saved_tensors() const { return {}; }

  /// Appends an input: where its gradient goes (gradient_edge) and its shape/dtype. An undefined
  /// tensor (an optional bias that is absent) gets an invalid edge.
  void add_input(const Tensor& t);
  void set_num_outputs(std::uint32_t n) { num_outputs_ = n; }

  /// A non-leaf tensor that called retain_grad(): its gradient is stored when this node receives it.
  struct RetainedGrad {
    std::weak_ptr<TensorImpl> tensor;
    std::uint32_t output_nr = 0;
  };
  void add_retained_grad(const std::shared_ptr<TensorImpl>& tensor, std::uint32_t output_nr);
  const std::vector<RetainedGrad>& retained_grads() const { return retained_; }

  /// Tensor hooks and the anomaly-mode trace (hooks.hpp); null for almost every node, so the
  /// engine's check costs one branch.
  NodeHooks* hooks() const { return hooks_.get(); }
  /// The node's hooks, created if missing.
  NodeHooks& ensure_hooks();
  /// Shares `hooks` (a leaf's hooks live in its AutogradMeta and reach its AccumulateGrad here).
  void set_hooks(std::shared_ptr<NodeHooks> hooks) { hooks_ = std::move(hooks); }
  const std::shared_ptr<NodeHooks>& shared_hooks() const { return hooks_; }

 private:
  friend struct EngineSlots;  // the engine's per-run bookkeeping (engine.cpp)
  // Which backward run last visited this node, and the node's index in that run's task list:
  // lets the engine find a node's state without a hash map (10,000 nodes = 10,000 lookups).
  // First, beside the edges: the engine's first walk over a long graph reads only these and the
  // edges, and every node it reaches is a cache miss -- one line per node instead of two.
  std::uint64_t engine_run_ = 0;
  std::uint32_t engine_slot_ = 0;
  std::uint32_t num_outputs_;

 protected:
  EdgeList next_functions_;
  SmallVector<InputMetadata, 2> input_metadata_;

 private:
  std::uint64_t sequence_nr_;
  std::vector<RetainedGrad> retained_;
  std::shared_ptr<NodeHooks> hooks_;
};

// [snippet: accumulate-grad]
/// The node at the bottom of the graph for a leaf tensor (a parameter): it adds the
/// incoming gradient into `variable.grad()`. One per leaf, shared by every op that uses
/// the leaf.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  const char* name() const override { return "AccumulateGrad"; }
  /// grad += incoming: the first gradient is stored, later ones are *added*
  /// (the zero_grad trap).
  Grads apply(Grads&& grad_outputs) override;
  /// The leaf this node accumulates into.
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};
// [end]

/// The AccumulateGrad node of a leaf that requires grad (created on first use, then shared).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

/// Where the gradient of `t` flows in the graph: (grad_fn, output_nr) for a non-leaf,
/// (AccumulateGrad, 0) for a leaf that requires grad, and an invalid edge otherwise.
Edge gradient_edge(const Tensor& t);

}  // namespace kindling::autograd
