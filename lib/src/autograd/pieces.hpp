#pragma once
/// @file
/// Chapter 2's exercise pieces: the parts of the autograd layer that *you* write.
///
/// Each piece is declared here (or, for the public one, in a public header named below), called by
/// the library at the point named in its comment, and defined in an answer file: your
/// `exercises/ch02/exK_*.cpp`, or the reference `solutions/ch02/exK_*.cpp`. The build compiles one
/// of the two into kindling_autograd, so every backward pass the library runs goes through your
/// derivatives, your unbroadcast, your matmul gradients and your dependency count, and every
/// gradcheck through your finite differences. `make grade CH=02` tests them; `make milestone
/// CH=02` fits a small network with them.
///
///   ex1  Mul, Div, Exp, Tanh ::backward       the rows MulBackward0, DivBackward0, ExpBackward0,
///                                              TanhBackward0 (binary/unary_ops_backward.cpp)
///   ex2  autograd::sum_to (engine.hpp)         validate_outputs, for every gradient of a broadcast input
///   ex3  mm_grad_a, mm_grad_b, Bmm::backward   MmBackward0, AddmmBackward0 (every Linear layer),
///                                              BmmBackward0 (batched matmul) (matmul_backward.cpp)
///   ex4  count_dependencies                    step 1 of every backward run (engine.cpp)
///   ex5  compare_with_finite_differences       the numerical half of autograd::gradcheck (gradcheck.cpp)
///
/// The library does the bookkeeping around each piece (what a Function saves in setup_context,
/// the checks on what a backward returns, the order the engine runs nodes in, gradcheck's report),
/// so a piece only computes.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "autograd/registry.hpp"
#include "kindling/autograd/gradcheck.hpp"

namespace kindling::autograd {

// ---- ex1: rows of the derivative table -----------------------------------------------------------
// Four Functions of chapter 1's ops. setup_context (in binary_ops_backward.cpp and
// unary_ops_backward.cpp) has saved what the formula needs; `backward` gets grad[0], the gradient
// of the loss w.r.t. the op's output, and returns one gradient per tensor input, in order. Write
// each formula for the output's (broadcast) shape: the engine sums it back to each input's shape.
// Return an undefined Tensor() for an input with !ctx.needs_input_grad(i) -- its saved partner may
// not have been kept. The formulas are tensor ops, so they are differentiable again (create_graph).

/// out = a * b.  Saved: ctx.saved(0) = a (kept only when needs_input_grad(1)),
/// ctx.saved(1) = b (kept only when needs_input_grad(0)).
struct Mul : Function<Mul> {
  static constexpr const char* name = "MulBackward0";
  void setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor& out);
  Grads backward(Context& ctx, const Grads& grad);  // ex1
};

/// out = a / b.  Saved: ctx.saved(0) = a (kept only when needs_input_grad(1)), ctx.saved(1) = b.
struct Div : Function<Div> {
  static constexpr const char* name = "DivBackward0";
  void setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor& out);
  Grads backward(Context& ctx, const Grads& grad);  // ex1
};

/// out = exp(x).  Saved: ctx.saved(0) = out (the output, not x).
struct Exp : Function<Exp> {
  static constexpr const char* name = "ExpBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor& out);
  Grads backward(Context& ctx, const Grads& grad);  // ex1
};

/// out = tanh(x).  Saved: ctx.saved(0) = out (the output, not x).
struct Tanh : Function<Tanh> {
  static constexpr const char* name = "TanhBackward0";
  void setup_context(Context& ctx, const Tensor& x, const Tensor& out);
  Grads backward(Context& ctx, const Grads& grad);  // ex1
};

// ---- ex2: unbroadcast ----------------------------------------------------------------------------
// Tensor sum_to(const Tensor& grad, const Shape& shape) -- declared in kindling/autograd/engine.hpp.

// ---- ex3: the backward of matrix products ---------------------------------------------------------

/// out = a @ b with a: [n, k], b: [k, m], g = d loss / d out: [n, m]  ->  d loss / d a: [n, k].
/// When a_column_major (a is a transposed view, like Linear's weight.t()), return the gradient in
/// a's own layout: a [n, k] tensor whose memory is column-major, so that the TBackward0 above it
/// hands the weight a contiguous gradient. Called by MmBackward0 and AddmmBackward0 (Linear).
Tensor mm_grad_a(const Tensor& g, const Tensor& b, bool a_column_major);
/// The same for d loss / d b: [k, m], given a; column-major when b_column_major.
Tensor mm_grad_b(const Tensor& g, const Tensor& a, bool b_column_major);

/// out[i] = a[i] @ b[i] with a: [B, n, k], b: [B, k, m]. Saved: ctx.saved(0) = a, ctx.saved(1) = b.
/// Every batched matmul (x.matmul(y) with a batch dimension) ends in a bmm.
struct Bmm : Function<Bmm> {
  static constexpr const char* name = "BmmBackward0";
  void setup_context(Context& ctx, const Tensor& a, const Tensor& b, const Tensor& out);
  Grads backward(Context& ctx, const Grads& grad);  // ex3
};

// ---- ex4: the engine's dependency count -----------------------------------------------------------

/// What one backward run knows about one node (engine.cpp).
struct Task {
  Node* node = nullptr;
  int dependencies = 0;  // gradients still to come from the nodes above
  Grads buffer;          // one slot per output of the node: the gradient received so far
  // A nested run (checkpointing's backward inside a backward) puts back what the outer run had
  // written into the node's slot fields: both runs may reach the same leaf (a parameter).
  std::uint64_t outer_run = 0;
  std::uint32_t outer_slot = 0;
};

/// Per-run state of every node reached by one backward call, found through the node's slot
/// fields (friend of Node) instead of a hash map: 10,000 nodes, 10,000 lookups, no hashing.
struct EngineSlots {
  std::uint64_t run;
  std::vector<Task>& tasks;
  bool nested;  // runs inside another run on this thread (depth > 0)
  explicit EngineSlots(int depth = 0);
  ~EngineSlots() {
    if (nested)
      for (Task& t : tasks) t.node->engine_run_ = t.outer_run, t.node->engine_slot_ = t.outer_slot;
    tasks.clear();  // drop leftover gradients (an exception midway) right away
  }
  /// True when n was already visited in this run.
  bool visited(const Node* n) const { return n->engine_run_ == run; }
  /// Marks n as part of this run (a new Task with 0 dependencies); true the first time only.
  bool visit(Node* n) {
    if (n->engine_run_ == run) return false;
    tasks.push_back({n, 0, {}, n->engine_run_, n->engine_slot_});
    n->engine_run_ = run;
    n->engine_slot_ = static_cast<std::uint32_t>(tasks.size() - 1);
    return true;
  }
  std::uint32_t slot(const Node* n) const { return n->engine_slot_; }
  /// The Task of a visited node.
  Task& task(const Node* n) { return tasks[n->engine_slot_]; }
};

/// Step 1 of backward: visits (slots.visit) every node reachable from `roots` through
/// next_functions() -- skip edges without a function -- and sets, for each, task(n).dependencies
/// to the number of edges pointing at n from the visited nodes (an edge used twice counts twice).
/// The engine then runs a node once its count drops to 0: a count too low runs it before all its
/// gradients arrived, one too high never runs it. Graphs can be 100,000 nodes deep: no recursion.
void count_dependencies(std::span<Node* const> roots, EngineSlots& slots);

// ---- ex5: gradcheck's finite differences ----------------------------------------------------------

/// analytical[o][k]: the Jacobian of output o w.r.t. checked input k that backward gives, row-major
/// [outs[o].numel(), xs[checked[k]].numel()] (all zeros for an output that is not differentiable).
using Jacobians = std::vector<std::vector<std::vector<double>>>;

/// The numerical half of gradcheck and the comparison. For every checked input k (xs[checked[k]]:
/// a float64 leaf, any strides), every element e of it and every element j of every floating-point
/// output o of fn(xs): numerical = (f(x + eps e_e)_j - f(x - eps e_e)_j) / (2 eps), compared with
/// a = analytical[o][k][j * numel + e]. An entry is bad unless |a - numerical| <= atol + rtol *
/// |numerical| (so NaN is bad). Returns ok (no bad entry), max_abs_error (the largest |a - numerical|,
/// inf for NaN), and, in the other fields, the entry with the largest |a - numerical| - (atol + rtol
/// * |numerical|). Runs with grad mode off; every element of xs holds its value again afterwards.
/// `outs` are fn(xs) computed once (for their shapes and dtypes; they may be views of xs).
GradcheckResult compare_with_finite_differences(const GradcheckFn& fn, const std::vector<Tensor>& xs,
                                                const std::vector<std::size_t>& checked,
                                                const std::vector<Tensor>& outs, const Jacobians& analytical,
                                                const GradcheckOptions& options);

/// Address of element `flat` (row-major numbering) of a float64 tensor with any strides.
inline double* element_ptr(const Tensor& t, std::int64_t flat) {
  std::int64_t offset = 0;
  for (std::int64_t d = t.dim() - 1; d >= 0; --d) {
    const std::int64_t size = t.size(d);
    offset += (flat % size) * t.stride(d);
    flat /= size;
  }
  return t.data_ptr<double>() + offset;
}

}  // namespace kindling::autograd
