// The backward engine. Three steps, all iterative (a 10,000-op chain must not need 10,000 stack
// frames):
//   1. walk the graph from the roots and count, for every node, how many edges point at it
//      (its dependencies: how many gradients it must wait for);
//   2. seed the roots with their gradients (1 for a scalar loss);
//   3. repeatedly run a node whose dependencies are all in, check and shape its results
//      (validate_outputs: sum broadcast gradients back to each input's shape), add them into the
//      input buffers of the nodes below it, and make those ready when their count reaches zero.
// Gradients that meet at a node (a tensor used twice) are summed in its buffer; at the leaves,
// AccumulateGrad adds them into .grad -- which keeps what the previous backward left there.
#include "kindling/autograd/engine.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <queue>
#include <string>
#include <utility>

#include "kindling/autograd/autograd_meta.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/autograd/hooks.hpp"
#include "kindling/autograd/node.hpp"
#include "kindling/autograd/reentrant.hpp"
#include "kindling/tensor/creation.hpp"
#include "autograd/engine_hooks.hpp"
#include "autograd/pieces.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/loops.hpp"

namespace kindling::autograd {

// Task and EngineSlots (what one run knows about each node) are in autograd/pieces.hpp, next to
// count_dependencies, the engine's step 1 -- chapter 2's exercise 4. sum_to, the repair
// validate_outputs makes, is exercise 2 (solutions/ch02/ex2_sum_to.cpp).

// The task list is reused from run to run (runs are serialised by the engine's mutex): a long
// graph then costs no large allocations. A nested run (depth 1, 2, ...) has a list of its own; a
// deque never moves its elements, so the outer runs' references stay valid.
static std::vector<Task>& task_storage(int depth) {
  static std::deque<std::vector<Task>> lists(1);
  while (static_cast<int>(lists.size()) <= depth) lists.emplace_back();
  return lists[static_cast<std::size_t>(depth)];
}

EngineSlots::EngineSlots(int depth) : tasks(task_storage(depth)), nested(depth > 0) {
  static std::atomic<std::uint64_t> next_run{1};
  run = next_run.fetch_add(1);
  tasks.clear();
}

// ---- is_expandable_to: may a gradient of shape `target` be summed to `shape`? ------------------
bool is_expandable_to(const Shape& shape, const Shape& target) {
  if (shape.size() > target.size()) return false;
  const std::size_t lead = target.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && shape[i] != target[lead + i]) return false;
  return true;
}

namespace {

// How many ReentrantBackwardGuards this thread holds now.
int& reentrant_allowed() {
  thread_local int allowed = 0;
  return allowed;
}

struct Root {
  Edge edge;
  Tensor grad;
};

struct LaterFirst {  // among ready nodes, run the most recently created first (PyTorch's order)
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

// Sums gradients arriving at the same node output. When the buffer holds a tensor nobody else can
// see (a fresh result of a formula), it is updated in place: a parameter used by 5,000 ops then
// costs 5,000 additions, not 5,000 new tensors.
void add_into(Grads& buffer, std::uint32_t slot, Tensor&& g, std::uint32_t size) {
  if (buffer.size() < size) buffer.resize(size);
  Tensor& acc = buffer[slot];
  if (!acc.defined()) {
    acc = std::move(g);
    return;
  }
  const bool owned = !is_grad_enabled() && acc.impl_ptr().use_count() == 1 && acc.storage().use_count() == 1 &&
                     acc.is_contiguous() && acc.shape() == g.shape() && acc.dtype() == g.dtype();
  if (!owned) {
    acc = acc + g;
  } else if (acc.is_floating_point() && !is_reduced_floating_point(acc.dtype())) {  // no add_ checks needed
    kindling::detail::dispatch_floating(acc.dtype(), "backward", [&](auto tag) {
      using T = typename decltype(tag)::type;
      kindling::detail::binary_loop<T, T, T>(acc, acc, g, [](T a, T b) { return a + b; });
    });
  } else {
    acc.add_(g);
  }
}

// Chapter 6: under autocast a float32 weight reaches the graph through its bfloat16 (or float16)
// copy, so its gradient arrives in 16 bits, to be converted to float32 and added into .grad. When
// it goes straight to the weight's AccumulateGrad, nothing else sees it and widening is exact: the
// accumulator widens it as it adds (binary_ops.cpp: add_widening), the same sum, and the float32
// copy of the gradient is never written. Not when a hook or autograd::grad would see the gradient
// (they are owed float32), when another gradient is still to be summed with it in the buffer
// (16-bit plus 16-bit would round), or under create_graph.
bool leaf_widens(const Tensor& g, const InputMetadata& meta, const Edge& next, const EngineSlots& slots) {
  if (meta.dtype != kFloat32 || !is_reduced_floating_point(g.dtype()) || !g.device().is_cpu()) return false;
  const Node* child = next.function.get();
  if (child->hooks() != nullptr || dynamic_cast<const AccumulateGrad*>(child) == nullptr) return false;
  const Task& t = slots.tasks[slots.slot(child)];
  return t.dependencies == 1 && (t.buffer.size() <= next.input_nr || !t.buffer[next.input_nr].defined());
}

// The checks PyTorch's validate_outputs makes on what a backward formula returned, and the one
// repair it makes: a gradient for the broadcast shape is summed back to the input's shape, and a
// gradient in another dtype is converted to the input's (given the run's `slots`, not when the
// leaf below widens it itself: leaf_widens).
void validate_outputs(const Node& node, Grads& grads, const EngineSlots* slots = nullptr) {
  const std::size_t n = node.num_inputs();
  if (grads.size() > n) {
    throw AutogradError(std::string("Function ") + node.name() + " returned an incorrect number of gradients "
                        "(expected " + std::to_string(n) + ", got " + std::to_string(grads.size()) +
                        "). Hint: backward returns one gradient per tensor input of forward, in order.");
  }
  grads.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    Tensor& g = grads[i];
    if (!node.next_functions()[i].is_valid()) {
      g = Tensor();  // the input needs no gradient: drop whatever the formula computed
      continue;
    }
    if (!g.defined()) continue;
    const InputMetadata& meta = node.input_metadata(i);
    if (g.shape() != meta.shape) {
      if (!is_expandable_to(meta.shape, g.shape())) {
        throw AutogradError(std::string("Function ") + node.name() + " returned an invalid gradient at index " +
                            std::to_string(i) + " - got " + shape_str(g.shape()) +
                            " but expected shape compatible with " + shape_str(meta.shape) +
                            ". Hint: a backward returns, for each input, a gradient of the input's shape (or "
                            "of a shape the input was broadcast to).");
      }
      g = sum_to(g, meta.shape);
    }
    if (g.dtype() != meta.dtype && !(slots && leaf_widens(g, meta, node.next_functions()[i], *slots)))
      g = g.to(meta.dtype);
  }
  // [snippet: anomaly-check]
  // Anomaly mode: a NaN or Inf the formula returned stops here (anomaly_mode.cpp).
  if (is_anomaly_enabled()) [[unlikely]] check_backward_outputs(node, grads);
  // [end]
}

// The gradient that starts backward at `t`: `given` checked against t, or 1 for a one-element t.
Tensor root_gradient(const Tensor& t, const Tensor& given, std::size_t i) {
  if (!given.defined()) {
    if (t.numel() != 1) {
      throw AutogradError("backward: grad can be implicitly created only for scalar outputs, but tensor " +
                          std::to_string(i) + " has shape " + shape_str(t.shape()) +
                          ". Hint: reduce it to a scalar first (loss.sum() or loss.mean()), or pass the "
                          "gradient explicitly: y.backward(kd::ones_like(y)).");
    }
    return ones_like(t);
  }
  if (given.shape() != t.shape()) {
    throw ShapeError("backward: Mismatch in shape: grad_output[" + std::to_string(i) + "] has a shape of " +
                     shape_str(given.shape()) + " and output[" + std::to_string(i) + "] has a shape of " +
                     shape_str(t.shape()) + ". Hint: the gradient passed to backward() must have the shape of "
                     "the tensor it belongs to.");
  }
  if (!given.is_floating_point()) {
    throw DTypeError(std::string("backward: the gradient for output ") + std::to_string(i) + " has dtype " +
                     dtype_name(given.dtype()) + ", but gradients must be floating point (the output is " +
                     dtype_name(t.dtype()) + "). Hint: pass kd::ones_like(y) or convert with .to(y.dtype()).");
  }
  if (given.device() != t.device()) {
    throw DeviceError("backward: the gradient for output " + std::to_string(i) + " is on " + given.device().str() +
                      " but the output is on " + t.device().str() + ". Hint: move it with .to(y.device()).");
  }
  return given.dtype() == t.dtype() ? given : given.to(t.dtype());
}

std::vector<Root> make_roots(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grads,
                             const char* api) {
  if (!grads.empty() && grads.size() != tensors.size()) {
    throw ValueError(std::string(api) + ": got " + std::to_string(tensors.size()) + " tensors but " +
                     std::to_string(grads.size()) + " gradients. Hint: pass one gradient per tensor (or none).");
  }
  std::vector<Root> roots;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (!t.defined()) throw ValueError(std::string(api) + ": tensor " + std::to_string(i) + " is undefined.");
    if (!t.requires_grad()) {
      throw AutogradError(std::string(api) + ": element " + std::to_string(i) +
                          " of tensors does not require grad and does not have a grad_fn. Hint: call "
                          "requires_grad_() on the leaf tensors (the parameters) before computing with them, "
                          "and do not compute the loss inside a kd::NoGradGuard scope.");
    }
    roots.push_back({gradient_edge(t), root_gradient(t, grads.empty() ? Tensor() : grads[i], i)});
  }
  return roots;
}

// autograd::grad: which nodes lead to a captured edge (PyTorch's exec_info). Only those run: a
// branch that reaches none of the requested inputs is not computed, and its hooks are not called.
// needed[slot] for every visited node, children decided before parents (Kahn's order, reversed).
std::vector<char> nodes_needed(const EngineSlots& slots, const std::vector<char>& captured_here) {
  const std::size_t n = slots.tasks.size();
  std::vector<std::int64_t> pending(n);
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    pending[i] = slots.tasks[i].dependencies;
    if (pending[i] == 0) order.push_back(static_cast<std::uint32_t>(i));
  }
  for (std::size_t k = 0; k < order.size(); ++k)
    for (const Edge& e : slots.tasks[order[k]].node->next_functions())
      if (e.function && --pending[slots.slot(e.function.get())] == 0) order.push_back(slots.slot(e.function.get()));
  std::vector<char> needed(captured_here);
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (const Edge& e : slots.tasks[*it].node->next_functions())
      if (e.function && needed[slots.slot(e.function.get())]) needed[*it] = 1;
  return needed;
}

// Runs the graph below `roots`. With `captures` (autograd::grad), records the gradient arriving at
// each captured edge instead of accumulating into leaves, and runs only the nodes that lead to one.
void execute(std::vector<Root>& roots, bool retain_graph, bool create_graph, bool accumulate_leaves,
             const std::vector<Edge>* captures, std::vector<Tensor>* captured) {
  // One backward at a time: the per-run bookkeeping lives in the nodes (EngineSlots). The one
  // exception is a backward that runs inside a formula on the same thread, when the formula asked
  // for it (detail::ReentrantBackwardGuard: checkpointing differentiates its recomputed segment).
  thread_local int depth = 0;
  if (depth > 0 && reentrant_allowed() == 0) {
    throw AutogradError("backward: called from inside a backward formula. Hint: a Function's backward must "
                        "compute its gradients with tensor ops, not by running another backward.");
  }
  static std::recursive_mutex engine_mutex;  // recursive: a nested run holds it already
  std::lock_guard<std::recursive_mutex> lock(engine_mutex);
  struct Depth {
    int& d;
    int allowed;
    ~Depth() { --d, reentrant_allowed() = allowed; }
  } guard{++depth, std::exchange(reentrant_allowed(), 0)};  // formulas of this run: not allowed again
  // Formulas are plain tensor ops: recorded only when the gradients must be differentiable.
  AutoGradMode grad_mode(create_graph);
  EngineSlots slots(depth - 1);
  // A backward() that only fills .grad: the 16-bit gradient of a float32 weight may reach its
  // AccumulateGrad unconverted (leaf_widens).
  const bool plain_backward = accumulate_leaves && !captures && !create_graph;

  // 1. dependencies: how many gradients each node waits for
  SmallVector<Node*, 4> root_nodes;
  for (const Root& r : roots) root_nodes.push_back(r.edge.function.get());
  count_dependencies(std::span<Node* const>(root_nodes.data(), root_nodes.size()), slots);

  std::vector<SmallVector<std::pair<std::uint32_t, std::size_t>, 1>> capture_at;
  std::vector<char> needed;  // empty: every node runs (backward)
  if (captures) {
    capture_at.resize(slots.tasks.size());
    std::vector<char> captured_here(slots.tasks.size(), 0);
    for (std::size_t i = 0; i < captures->size(); ++i) {
      const Edge& e = (*captures)[i];
      if (e.function && slots.visited(e.function.get())) {
        capture_at[slots.slot(e.function.get())].push_back({e.input_nr, i});
        captured_here[slots.slot(e.function.get())] = 1;
      }
    }
    needed = nodes_needed(slots, captured_here);
  }

  // 2. seed
  std::priority_queue<Node*, std::vector<Node*>, LaterFirst> ready;
  for (Root& r : roots) {
    Node* n = r.edge.function.get();
    add_into(slots.task(n).buffer, r.edge.input_nr, std::move(r.grad), n->num_outputs());
  }
  for (Root& r : roots) {
    Task& t = slots.task(r.edge.function.get());
    if (t.dependencies == 0) {
      t.dependencies = -1;  // queued once even if it is the root of several outputs
      ready.push(t.node);
    }
  }

  // 3. run
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    const std::uint32_t slot = slots.slot(n);
    if (!needed.empty() && !needed[slot]) continue;  // autograd::grad: reaches no requested input
    Grads grads = std::move(slots.tasks[slot].buffer);
    grads.resize(n->num_outputs());
    // [snippet: hooks-check]
    // Tensor hooks (register_hook) see the gradient first and may replace it (hooks.cpp).
    if (n->hooks()) [[unlikely]] run_pre_hooks(*n, grads);
    // [end]

    if (accumulate_leaves) {
      // retain_grad(): a non-leaf asked to keep the gradient of the output this node receives.
      for (const auto& r : n->retained_grads()) {
        auto impl = r.tensor.lock();
        if (!impl || !grads[r.output_nr].defined()) continue;
        auto* meta = static_cast<AutogradMeta*>(impl->autograd_meta.get());
        const Tensor& g = grads[r.output_nr];
        meta->grad = meta->grad.defined() ? meta->grad + g : g.clone();
      }
    }
    if (captures) {
      for (auto [out_nr, index] : capture_at[slot]) (*captured)[index] = grads[out_nr];
    }

    // [snippet: engine-run]
    bool any = false;
    for (const Tensor& g : grads) any = any || g.defined();
    const bool is_leaf_node =
        n->num_inputs() == 0 && dynamic_cast<AccumulateGrad*>(n) != nullptr;
    Grads outputs;
    if (any && (accumulate_leaves || !is_leaf_node)) {
      outputs = n->apply(std::move(grads));
      validate_outputs(*n, outputs, plain_backward ? &slots : nullptr);
    }
    if (!retain_graph) n->release_saved();

    const auto& next = n->next_functions();
    for (std::size_t i = 0; i < next.size(); ++i) {
      Node* child = next[i].function.get();
      if (!child) continue;
      Task& t = slots.task(child);
      if (i < outputs.size() && outputs[i].defined()) {
        add_into(t.buffer, next[i].input_nr, std::move(outputs[i]),
                 child->num_outputs());
      }
      if (--t.dependencies == 0) ready.push(child);
    }
    // [end]
    // register_post_accumulate_grad_hook: the leaf's .grad is final for this backward.
    if (is_leaf_node && any && accumulate_leaves && n->hooks()) [[unlikely]] run_post_accumulate_hooks(*n);
  }
}

}  // namespace

void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph) {
  std::vector<Root> roots = make_roots(tensors, grad_tensors, "backward");
  execute(roots, retain_graph.value_or(create_graph), create_graph, /*accumulate_leaves=*/true, nullptr, nullptr);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, const GradOptions& options) {
  std::vector<Root> roots = make_roots(outputs, grad_outputs, "grad");
  std::vector<Edge> captures;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) {
      throw AutogradError("grad: input " + std::to_string(i) +
                          " does not require grad. Hint: call requires_grad_() on it before the forward pass.");
    }
    captures.push_back(gradient_edge(inputs[i]));
  }
  std::vector<Tensor> result(inputs.size());
  execute(roots, options.retain_graph.value_or(options.create_graph), options.create_graph,
          /*accumulate_leaves=*/false, &captures, &result);
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (!result[i].defined() && !options.allow_unused) {
      throw AutogradError("grad: input " + std::to_string(i) + " (shape " + shape_str(inputs[i].shape()) +
                          ") was not used to compute the outputs. Hint: pass allow_unused=true to get an "
                          "undefined tensor for it instead.");
    }
  }
  return result;
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph, bool allow_unused) {
  return grad(outputs, inputs, grad_outputs, GradOptions{.retain_graph = retain_graph, .allow_unused = allow_unused});
}

namespace detail {
ReentrantBackwardGuard::ReentrantBackwardGuard() { ++reentrant_allowed(); }
ReentrantBackwardGuard::~ReentrantBackwardGuard() { --reentrant_allowed(); }
}  // namespace detail

}  // namespace kindling::autograd
