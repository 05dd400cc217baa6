#pragma once
// Internal to the autograd layer: how chapter 1's ops find their Functions.
//
// A chapter-1 op ends with `return record<"mul">(out, a, b);`. When an argument requires grad, the
// recorder (registry.cpp) looks "mul" up here and finds the row that `r.add<Mul>("mul")` made in
// binary_ops_backward.cpp. The row builds a FunctionNode<Mul>, gives it one edge per tensor argument,
// and calls `Mul::setup_context(ctx, a, b, out)` -- with the same arguments the op recorded, typed
// and named. The row also carries the argument types setup_context takes, so a forward and its
// backward that disagree are caught (with both signatures spelled out) instead of misread.
//
// Each *_backward.cpp file mirrors a forward file of lib/src/tensor/ and ends with one
// `register_*(Registry&)` function listing its rows; registry.cpp calls them all, once.
#include <cstddef>
#include "kindling/tensor/small_object_pool.hpp"
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kindling/autograd/function.hpp"
#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling::autograd {

/// One registered op: its key, the argument types its setup_context takes, and how to record it.
struct OpRow {
  const char* key = "";
  const void* signature = nullptr;
  std::string_view signature_name;
  std::string node_name;
  void (*record)(const kindling::detail::RecordedOp& op) = nullptr;
};

namespace detail {

/// The argument types of F::setup_context(Context&, Args..., Out): everything between the context
/// and the last parameter (the output, `const Tensor&`, or `std::span<const Tensor>` for several).
template <class M>
struct SetupTraits;
template <class F, class... P>
struct SetupTraits<void (F::*)(Context&, P...)> {
  static_assert(sizeof...(P) >= 1, "setup_context(ctx, inputs..., output): the output comes last");
  using Params = std::tuple<P...>;
  static constexpr std::size_t num_args = sizeof...(P) - 1;
  template <std::size_t... I>
  static auto args_of(std::index_sequence<I...>)
      -> std::tuple<std::remove_cvref_t<std::tuple_element_t<I, Params>>...>;
  using Args = decltype(args_of(std::make_index_sequence<num_args>{}));  // the Signature, decayed
  using Output = std::remove_cvref_t<std::tuple_element_t<num_args, Params>>;
  static constexpr bool single_output = std::is_same_v<Output, Tensor>;
};

template <class Tuple>
struct ConstRefs;
template <class... A>
struct ConstRefs<std::tuple<A...>> {
  using type = std::tuple<const A&...>;
};

/// The recording function of row F: what happens when a chapter-1 op recorded under F's key.
template <class F>
void record_with(const kindling::detail::RecordedOp& op) {
  using Traits = SetupTraits<decltype(&F::setup_context)>;
  const auto& args = *static_cast<const typename ConstRefs<typename Traits::Args>::type*>(op.args);
  // An op that returned its own input unchanged (x.to(x.dtype()), contiguous() of a contiguous
  // tensor) did nothing: a node would make the tensor its own ancestor.
  for (std::size_t i = 0; i < op.num_outputs; ++i) {
    const bool is_input = std::apply(
        [&](const auto&... a) { return (is_same_tensor(a, op.outputs[i]) || ...); }, args);
    if (is_input) return;
  }
  auto node = kindling::detail::make_pooled<FunctionNode<F>>();
  std::apply([&](const auto&... a) { (add_inputs(*node, a), ...); }, args);
  if constexpr (Traits::single_output) {
    std::apply([&](const auto&... a) { node->fn.setup_context(node->ctx, a..., op.outputs[0]); }, args);
  } else {
    const std::span<const Tensor> outs(op.outputs, op.num_outputs);
    std::apply([&](const auto&... a) { node->fn.setup_context(node->ctx, a..., outs); }, args);
  }
  SmallVector<Tensor*, 3> outs;
  for (std::size_t i = 0; i < op.num_outputs; ++i) outs.push_back(&op.outputs[i]);
  node->finish(outs);
}

}  // namespace detail

/// The table of chapter-1 ops and their Functions.
class Registry {
 public:
  /// Registers Function F under `key` (the string its forward passes to record<>).
  template <class F>
  void add(const char* key) {
    using Args = typename detail::SetupTraits<decltype(&F::setup_context)>::Args;
    F probe;
    insert({key, kindling::detail::type_id<Args>(), kindling::detail::type_name<Args>(), detail::node_name(probe),
            &detail::record_with<F>});
  }
  const OpRow* find(std::string_view key) const;
  std::vector<const OpRow*> rows() const;

 private:
  void insert(OpRow row);
  std::unordered_map<std::string_view, OpRow> rows_;
};

/// The registry, filled on first use by every family's register function.
const Registry& registry();
/// Plugs the recorder and the other hooks into chapter 1 (idempotent, thread-safe).
void install();

// One function per *_backward.cpp file.
void register_binary_ops(Registry& r);
void register_unary_ops(Registry& r);
void register_compare_ops(Registry& r);
void register_copy(Registry& r);
void register_join(Registry& r);
void register_matmul(Registry& r);
void register_reductions(Registry& r);
void register_softmax(Registry& r);
void register_views(Registry& r);
void register_gather_scatter(Registry& r);
void register_shape_ops(Registry& r);

}  // namespace kindling::autograd
