#pragma once
/// @file
/// autograd::Function: the one way to define a backward in Kindling -- PyTorch's
/// `torch.autograd.Function` (and LibTorch's `Function<T>`) in C++.
///
/// A Function is a struct with a `forward` and a `backward`. `apply` runs forward with grad mode
/// off, and when an input requires grad it turns the struct into a node of the graph: its data
/// members are the node's state, `ctx` keeps the tensors backward needs.
///
///     struct Exp : kd::autograd::Function<Exp> {          // y = e^x
///       kd::Tensor forward(kd::autograd::Context& ctx, const kd::Tensor& x) {
///         kd::Tensor y = x.exp();
///         ctx.save_for_backward({y});                     // dy/dx = e^x = y: keep the output
///         return y;
///       }
///       kd::autograd::Grads backward(kd::autograd::Context& ctx, const kd::autograd::Grads& grad) {
///         return {grad[0] * ctx.saved(0)};               // one gradient per tensor input
///       }
///     };
///     kd::Tensor y = Exp::apply(x);                       // y.grad_fn()->name() == "ExpBackward"
///
/// - `backward` gets one gradient per output and returns one per *tensor* argument of forward, in
///   order (an undefined Tensor for "none"). It may return the gradient for a broadcast shape: the
///   engine sums it back to each input's shape (sum_to), and converts it to the input's dtype.
/// - `ctx.needs_input_grad(i)` says whether input i wants a gradient at all (skip the work if not).
/// - Every tensor backward uses goes through `ctx.save_for_backward` -- differentiable or not (a
///   target, indices, a mask) -- so that modifying it in place before backward is caught.
/// - The node's name is `static constexpr const char* name = "..."` if the struct has one (the
///   library's own Functions use PyTorch's names: "MulBackward0"), else "<Struct>Backward".
/// - A backward written with tensor ops is itself differentiable (create_graph: gradients of
///   gradients). One written with a raw kernel is not: say so with
///   `static constexpr bool once_differentiable = true;` and differentiating its result raises a
///   clear error instead of silently giving zero (PyTorch's `once_differentiable` decorator).
///
/// Chapter 1's ops are Functions too, written in PyTorch 2's other style: their forward is the
/// chapter-1 op itself, which calls `detail::record<"key">(out, args...)`; the Function registered
/// under that key has `setup_context(ctx, args..., out)` instead of forward (see
/// lib/src/autograd/registry.hpp and any `*_backward.cpp`).
#include <concepts>
#include "kindling/tensor/small_object_pool.hpp"
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <vector>

#include "kindling/autograd/autograd_meta.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/autograd/node.hpp"
#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling::autograd {

/// A tensor kept for backward, with the version its storage had when it was saved: unpacking it
/// after an in-place change (x.mul_(2) between forward and backward) is an error, not a wrong
/// gradient. An *output* of the saving node is kept without its autograd meta -- output -> grad_fn
/// -> saved output would be a reference cycle (PyTorch's SavedVariable does the same).
class SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor& t);
  /// `t` is output `output_nr` of `owner`: keep its data only, and give it back with grad_fn =
  /// owner when a double backward (create_graph) needs to differentiate through it.
  void mark_output(Node* owner, std::uint32_t output_nr);
  /// The tensor, after checking it was not modified in place since it was saved. `owner` names the
  /// node in the error messages; `slot` is the tensor's position among the node's saved tensors.
  Tensor unpack(const Node& owner, std::size_t slot) const;
  bool defined() const { return data_.defined(); }
  bool was_saved() const { return saved_; }
  bool is_same(const Tensor& t) const { return data_.is_same(t); }
  /// The data without any check (for inspection: Node::saved_tensors()).
  const Tensor& peek() const { return data_; }
  void release() { data_ = Tensor(); }

 private:
  Tensor data_;
  std::uint64_t version_ = 0;
  Node* output_of_ = nullptr;  // the node this is an output of (not owned: it owns us)
  const char* producer_ = nullptr;  // grad_fn name of the saved tensor, for the error message
  std::uint32_t output_nr_ = 0;
  bool saved_ = false;  // next to output_nr_: 48 bytes, not 56 (two of them in most nodes)
};

/// What forward leaves for backward: PyTorch's `ctx`.
class Context {
 public:
  /// Keeps tensors for backward: inputs, outputs, or anything else the formula needs.
  void save_for_backward(std::initializer_list<Tensor> tensors);
  void save_for_backward(std::span<const Tensor> tensors);
  /// Saved tensor i, checked for in-place modification since it was saved.
  Tensor saved(std::size_t i) const;
  /// All saved tensors, in the order they were saved (each checked).
  Grads saved_tensors() const;
  std::size_t num_saved() const { return saved_.size(); }
  /// Does tensor input i (in the order of forward's tensor arguments) want a gradient?
  bool needs_input_grad(std::size_t i) const;

  // ---- used by the machinery -------------------------------------------------------------------
  void bind(Node* node) { node_ = node; }
  void mark_outputs(std::span<Tensor> outputs);
  void release();
  bool released() const { return released_; }
  std::vector<Tensor> peek_saved() const;

 private:
  SmallVector<SavedTensor, 2> saved_;
  Node* node_ = nullptr;  // null while forward runs without recording (no input requires grad)
  bool released_ = false;
};

/// A tensor argument of forward that is not an input of the graph -- indices, a target, a mask: it
/// gets no edge in next_functions (PyTorch's non-differentiable arguments). Save it with
/// ctx.save_for_backward like any tensor backward reads, so in-place changes are still caught.
/// (Defined next to the recorder, kindling/tensor/autograd_hooks.hpp, so chapter-1 ops record it too.)
using NonDifferentiable = kindling::detail::NonDifferentiable;

namespace detail {

/// Adds the edges and metadata of one argument of a Function to `node`: a Tensor is one input, a
/// list of tensors is several, anything else (ints, scalars, options) is not an input.
inline void add_inputs(Node& node, const Tensor& t) { node.add_input(t); }
inline void add_inputs(Node& node, const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) node.add_input(t);
}
template <class T>
void add_inputs(Node&, const T&) {}

/// The outputs of forward as a list of Tensor pointers (Tensor, std::vector<Tensor>, std::pair,
/// std::tuple of tensors).
inline SmallVector<Tensor*, 3> output_list(Tensor& t) { return {&t}; }
inline SmallVector<Tensor*, 3> output_list(std::vector<Tensor>& ts) {
  SmallVector<Tensor*, 3> out;
  for (Tensor& t : ts) out.push_back(&t);
  return out;
}
template <class... T>
SmallVector<Tensor*, 3> output_list(std::tuple<T...>& ts) {
  return std::apply([](auto&... t) { return SmallVector<Tensor*, 3>{&t...}; }, ts);
}
template <class A, class B>
SmallVector<Tensor*, 3> output_list(std::pair<A, B>& ts) {
  return {&ts.first, &ts.second};
}

/// Makes `node` the grad_fn of every floating-point output, and turns saved outputs into their
/// cycle-free form. Integer outputs (indices) are never differentiable.
void attach_outputs(Node& node, Context& ctx, std::span<Tensor* const> outputs);

/// "ExpBackward" for `struct Exp`: PyTorch's default name for a custom Function's node.
std::string default_node_name(std::string_view type_name);

template <class F>
const char* node_name(const F& fn) {
  if constexpr (requires { { F::name } -> std::convertible_to<const char*>; }) {
    (void)fn;
    return F::name;
  } else if constexpr (requires { { fn.name() } -> std::convertible_to<const char*>; }) {
    return fn.name();
  } else {
    static const std::string name = default_node_name(kindling::detail::type_name<F>());
    return name.c_str();
  }
}

/// Multi-output nodes whose outputs did not all receive a gradient get zeros there (PyTorch's
/// materialize_grads), so a backward formula never has to test for an undefined gradient.
void materialize_grads(const Node& node, Grads& grads, std::span<const InputMetadata> outputs);

template <class F>
constexpr bool is_once_differentiable() {
  if constexpr (requires { F::once_differentiable; }) return F::once_differentiable;
  else return false;
}

/// Under create_graph, the gradients a once-differentiable backward computed get a node that raises
/// when a second backward reaches it (PyTorch's DelayedError).
void delay_error(const char* name, const Grads& grad_outputs, Grads& grad_inputs);

/// The node a Function becomes: the struct itself (its members are the node's state) plus its ctx.
template <class F>
class FunctionNode final : public Node {
 public:
  F fn;
  Context ctx;
  // Only kept for multi-output nodes (materialize_grads): a std::vector, empty (and 24 bytes) in the
  // single-output nodes nearly every op makes; inline room would cost each of them 72 bytes more.
  std::vector<InputMetadata> outputs;

  FunctionNode() { ctx.bind(this); }
  const char* name() const override { return node_name(fn); }
  Grads apply(Grads&& grads) override {
    if (ctx.released()) throw_released(name());
    if (num_outputs() > 1) materialize_grads(*this, grads, outputs);
    Grads result = fn.backward(ctx, grads);
    if constexpr (is_once_differentiable<F>()) {
      if (is_grad_enabled()) delay_error(name(), grads, result);
    }
    return result;
  }
  void release_saved() override { ctx.release(); }
  std::vector<Tensor> saved_tensors() const override { return ctx.peek_saved(); }

  /// Attaches the node to forward's outputs.
  void finish(std::span<Tensor* const> outs) {
    if (outs.size() > 1) {
      for (Tensor* t : outs) outputs.push_back({t->shape(), t->dtype(), t->device()});
    }
    attach_outputs(*this, ctx, outs);
  }

 private:
  [[noreturn]] static void throw_released(const char* name);
};

template <class F>
void FunctionNode<F>::throw_released(const char* name) {
  throw AutogradError(std::string(name) +
                      ": Trying to backward through the graph a second time (or directly access saved "
                      "tensors after they have already been freed). Saved intermediate values of the "
                      "graph are freed when you call backward(). Specify retain_graph=true if you need "
                      "to backward through the graph a second time: y.backward({}, /*retain_graph=*/true).");
}

/// Is `out` (an output of forward) the very TensorImpl of this argument?
inline bool is_same_tensor(const Tensor& arg, const Tensor& out) { return arg.is_same(out); }
inline bool is_same_tensor(const std::vector<Tensor>& args, const Tensor& out) {
  for (const Tensor& a : args)
    if (a.is_same(out)) return true;
  return false;
}
template <class T>
bool is_same_tensor(const T&, const Tensor&) {
  return false;
}

/// The tensor arguments of one Function call, in order (for an observer).
inline void collect_tensors(std::vector<Tensor>& out, const Tensor& t) { out.push_back(t); }
inline void collect_tensors(std::vector<Tensor>& out, const std::vector<Tensor>& ts) {
  out.insert(out.end(), ts.begin(), ts.end());
}
inline void collect_tensors(std::vector<Tensor>& out, const NonDifferentiable& n) { out.push_back(n.tensor); }
template <class T>
void collect_tensors(std::vector<Tensor>&, const T&) {}

}  // namespace detail

/// One recorded Function call as a tracer sees it (chapter 10's ONNX exporter): the backward node's
/// name, the arguments typed as the call made them (compare `signature` with
/// kindling::detail::type_id<kindling::detail::Signature<A...>>() before reading `args` as a
/// std::tuple<const A&...>), the tensor arguments, and the output (single-output Functions only).
struct FunctionCall {
  const char* name;
  const void* signature;
  std::string_view signature_name;
  const void* args;
  const std::vector<Tensor>& tensor_inputs;
  const Tensor& output;
};
/// Called after each recorded Function call while installed (nullptr: none, the default). A later
/// layer installs one for the length of a trace; the cost otherwise is one load per recorded call.
using FunctionObserver = void (*)(const FunctionCall& call);
void set_function_observer(FunctionObserver observer);
FunctionObserver function_observer();

/// The CRTP base of every Function: `struct MyOp : Function<MyOp> { forward, backward }`.
template <class Derived>
struct Function {
  /// Runs Derived::forward(ctx, args...) with grad mode off. When grad mode is on and a tensor
  /// argument requires grad, the result's grad_fn is a new node whose apply() calls
  /// Derived::backward. Returns what forward returns (a Tensor, a vector, a pair or tuple of them).
  template <class... Args>
  static auto apply(const Args&... args) {
    if (!(kindling::detail::requires_grad(args) || ...) || !is_grad_enabled()) {
      Derived fn;
      Context ctx;  // not bound to a node: saves are dropped
      NoGradGuard no_grad;
      return fn.forward(ctx, args...);
    }
    auto node = kindling::detail::make_pooled<detail::FunctionNode<Derived>>();
    (detail::add_inputs(*node, args), ...);
    auto out = [&] {
      NoGradGuard no_grad;
      return node->fn.forward(node->ctx, args...);
    }();
    auto outs = detail::output_list(out);
    // forward handed back an input unchanged: give the output its own TensorImpl (a view of the same
    // memory) so that it can have a grad_fn of its own.
    for (Tensor* t : outs)
      if ((detail::is_same_tensor(args, *t) || ...)) *t = t->detach();
    node->finish(outs);
    if constexpr (std::is_same_v<decltype(out), Tensor>) {
      if (FunctionObserver observe = function_observer()) [[unlikely]] {
        std::vector<Tensor> tensors;
        (detail::collect_tensors(tensors, args), ...);
        using Sig = kindling::detail::Signature<Args...>;
        const std::tuple<const Args&...> packed(args...);
        observe(FunctionCall{node->name(), kindling::detail::type_id<Sig>(), kindling::detail::type_name_v<Sig>,
                             &packed, tensors, out});
      }
    }
    return out;
  }
};

}  // namespace kindling::autograd
