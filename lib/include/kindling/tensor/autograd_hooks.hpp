#pragma once
/// @file
/// The seam between chapter 1 and chapter 2. Tensor ops (chapter 1) compute values only. When an
/// input requires grad and grad mode is on, an op hands what it just did to a *recorder* that the
/// autograd layer (chapter 2) installs:
///
///     Tensor mul(const Tensor& a, const Tensor& b) {
///       Tensor out = ...the kernel...;
///       return detail::record<"mul">(out, a, b);    // autograd/binary_ops_backward.cpp: struct Mul
///     }
///
/// The key ("mul") names the chapter-2 `autograd::Function` that knows the op's derivative; the
/// arguments after the output are the op's arguments, tensors and others, exactly as the forward
/// got them. The recorder hands them, typed and named, to that Function's `setup_context`, which
/// saves what backward will need. This is PyTorch's "Autograd dispatch key" in miniature: the math
/// never knows about graphs, and chapter 1 builds and links without chapter 2.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::detail {

// ---- op keys and argument signatures ----------------------------------------------------------------

/// A string literal usable as a template argument: `record<"mul">(...)`.
template <std::size_t N>
struct OpKey {
  char str[N]{};
  constexpr OpKey(const char (&s)[N]) {  // NOLINT(google-explicit-constructor)
    for (std::size_t i = 0; i < N; ++i) str[i] = s[i];
  }
};

/// A unique address per type: identifies an op's argument types across the two layers.
template <class T>
const void* type_id() {
  static constexpr char id = 0;
  return &id;
}

/// The name of a type, as the compiler spells it (for error messages).
template <class T>
constexpr std::string_view type_name() {
  std::string_view p = __PRETTY_FUNCTION__;
#if defined(__clang__)
  const std::string_view start = "T = ";
  const auto first = p.find(start) + start.size();
  return p.substr(first, p.rfind(']') - first);
#else
  const std::string_view start = "with T = ";
  const auto first = p.find(start) + start.size();
  const auto last = p.find_first_of(";]", first);
  return p.substr(first, last - first);
#endif
}

/// type_name<T>() computed once, at compile time (a call in a hot path would search the
/// function's name on every call).
template <class T>
inline constexpr std::string_view type_name_v = type_name<T>();

/// The argument types an op records, with references and const removed: the signature that the
/// chapter-2 Function's setup_context must take.
template <class... Args>
using Signature = std::tuple<std::remove_cvref_t<Args>...>;

/// Text for one recorded argument: a tensor as `Tensor[2, 3]@<address of its TensorImpl>`, a list of
/// dims as `[0, 2]`, numbers as numbers. Used for error messages and by tests of chapter 1, which
/// check what an op records without chapter 2's Functions.
std::string describe_arg(const Tensor& t);
std::string describe_arg(const std::vector<Tensor>& ts);
std::string describe_arg(IntArrayRef dims);
std::string describe_arg(const Scalar& s);
std::string describe_arg(const std::optional<Scalar>& s);
std::string describe_arg(std::int64_t v);
std::string describe_arg(bool v);

/// A tensor argument that is not an input of the graph -- positions, a mask, a target: recorded (and
/// saved by the backward that reads it) but given no edge, like PyTorch's non-differentiable
/// arguments (GatherBackward0 has one next function, not two). `record<"gather">(out, x, dim,
/// NonDifferentiable{index})`; chapter 2 calls it autograd::NonDifferentiable.
struct NonDifferentiable {
  Tensor tensor;
};
inline std::string describe_arg(const NonDifferentiable& n) { return "NonDifferentiable(" + describe_arg(n.tensor) + ")"; }

template <class... Args>
std::string describe_args(const void* args) {
  const auto& tuple = *static_cast<const std::tuple<const Args&...>*>(args);
  std::string out;
  std::apply([&](const auto&... a) { ((out += (out.empty() ? "" : ", ") + describe_arg(a)), ...); }, tuple);
  return out;
}

/// What the recorder receives for one forward call.
struct RecordedOp {
  const char* key;                 // "mul"
  const void* signature;           // type_id<Signature<Args...>>()
  std::string_view signature_name; // type_name<Signature<Args...>>()
  const void* args;                // a std::tuple<const Args&...>* with the call's arguments
  Tensor* outputs;                 // the op's outputs (one for most ops; max(dim) returns two)
  std::size_t num_outputs;
  const void** cache;              // the call site's slot for the row the recorder found
  std::string (*describe)(const void* args);  // the arguments as text: "Tensor[2, 3]@0x.., [0, 2], true"
};
using Recorder = void (*)(const RecordedOp& op);

/// Installed by kindling_autograd (autograd/registry.cpp) the first time a tensor requires grad.
void set_recorder(Recorder recorder);
Recorder recorder();

/// Every record<Key>(...) call site in the program, collected at start-up, so that a test can check
/// that each one has a backward (autograd's registry must know the key, with the same signature).
struct RecordSite {
  const char* key;
  const void* signature;
  std::string_view signature_name;
};
const std::vector<RecordSite>& record_sites();
bool add_record_site(const char* key, const void* signature, std::string_view signature_name);

template <OpKey Key, class Sig>
struct RecordSiteRegistration {
  static inline const bool registered = add_record_site(Key.str, type_id<Sig>(), type_name_v<Sig>);
};

// ---- grad mode and "does this call need recording?" --------------------------------------------------

/// Thread-local grad mode (NoGradGuard flips it off for a scope).
bool grad_mode_enabled();
void set_grad_mode_enabled(bool enabled);

inline bool requires_grad(const Tensor& t) { return t.defined() && t.impl()->requires_grad(); }
inline bool requires_grad(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts)
    if (requires_grad(t)) return true;
  return false;
}
template <class T>
constexpr bool requires_grad(const T&) {  // any other argument: an int, a Scalar, a list of dims
  return false;
}

/// True when an op over these arguments must be recorded: grad mode is on, autograd is installed,
/// and at least one tensor argument requires grad.
template <class... Args>
bool needs_grad(const Args&... args) {
  return (requires_grad(args) || ...) && grad_mode_enabled() && recorder() != nullptr;
}
bool needs_grad(const std::vector<Tensor>& inputs);

/// Records `out` as produced by the op `Key` from `args` (a no-op unless needs_grad(args...)).
/// Returns `out`, so a forward can end with `return record<"exp">(out, x);`.
template <OpKey Key, class... Args>
Tensor record(Tensor out, const Args&... args) {
  (void)RecordSiteRegistration<Key, Signature<Args...>>::registered;
  if (needs_grad(args...)) {
    static const void* cache = nullptr;
    const std::tuple<const Args&...> packed(args...);
    const RecordedOp op{Key.str, type_id<Signature<Args...>>(), type_name_v<Signature<Args...>>, &packed, &out,
                        1, &cache, &describe_args<Args...>};
    recorder()(op);
  }
  return out;
}

/// The multi-output form (max(dim) returns values and indices; only floating outputs get a grad_fn).
template <OpKey Key, class... Args>
void record_outputs(Tensor* outs, std::size_t num_outs, const Args&... args) {
  (void)RecordSiteRegistration<Key, Signature<Args...>>::registered;
  if (needs_grad(args...)) {
    static const void* cache = nullptr;
    const std::tuple<const Args&...> packed(args...);
    const RecordedOp op{Key.str, type_id<Signature<Args...>>(), type_name_v<Signature<Args...>>, &packed, outs,
                        num_outs, &cache, &describe_args<Args...>};
    recorder()(op);
  }
}

// ---- the few other things chapter 1 asks of chapter 2 ------------------------------------------------

/// Names the backward node of a tensor ("MulBackward0") for printing `grad_fn=<MulBackward0>`;
/// returns "" for a tensor without one. Installed together with the recorder.
using NodeNameFn = std::string (*)(const Tensor& t);
void set_node_name_fn(NodeNameFn fn);
/// The installed function, or nullptr before chapter 2's layer is linked in.
NodeNameFn node_name_fn();

/// Called when a value is read out of a tensor into C++ (`item()`, `to_vector()`), with which of the
/// two. kd::compile's tracer (chapter 10) installs it: a number taken out of a tensor and used again
/// would be frozen into the trace at its traced value, so the module that read it runs eagerly
/// instead (a graph break, as torch.compile breaks on `.item()`). Null otherwise: one branch.
using ValueReadObserver = void (*)(const Tensor& t, const char* how);
void set_value_read_observer(ValueReadObserver fn);
ValueReadObserver value_read_observer();

/// Makes `t` require grad. With chapter 2 installed this creates its full autograd meta; without
/// it (a chapter-1-only program) a minimal one that only says "requires grad".
void set_requires_grad(TensorImpl& t);
using AutogradMetaFactory = std::unique_ptr<AutogradMetaInterface> (*)();
void set_autograd_meta_factory(AutogradMetaFactory factory);

/// Refuses an in-place write that autograd could not account for (a leaf that requires grad
/// while grad mode is on). `op` names the in-place op in the message.
void check_inplace(const Tensor& self, const char* op);

}  // namespace kindling::detail
