#pragma once
/// @file
/// nn::Module: the base of every layer and every model. A module owns parameters (tensors that
/// require grad and that an optimizer updates), buffers (state that is saved but not trained, like
/// BatchNorm's running mean) and child modules, and knows how to walk all three recursively.
///
///     struct SimpleNet : kd::nn::Module {
///       kd::nn::Linear fc1{784, 128};
///       kd::nn::ReLU relu;
///       kd::nn::Linear fc2{128, 10};
///       SimpleNet() { register_module("fc1", fc1); register_module("relu", relu); register_module("fc2", fc2); }
///       kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }
///     };
///
/// **How `model(x)` reaches your forward.** `forward(const Tensor&)` is virtual; `operator()` is not,
/// and simply calls it (PyTorch's `__call__` → `forward`). A derived class's
/// `Tensor forward(const Tensor& x)` overrides it even without the `override` keyword.
///
/// **Copying and moving.** Registration stores the *address* of a member child (`register_module("fc1",
/// fc1)`), so copying a module would share or dangle those addresses. Modules are therefore
/// non-copyable. Moving is allowed only when it is safe: a module whose children are all *owned*
/// (leaf layers such as Linear, and containers such as Sequential, which hold their children through
/// shared pointers) can be moved, e.g. into a Sequential; moving a module that registered a member by
/// reference throws a kd::Error that says so (construct such a module in place, or hold it in a
/// std::shared_ptr). Parameters and buffers are stored as Tensor handles, which survive moves.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "kindling/autograd/anomaly_mode.hpp"
#include "kindling/autograd/hooks.hpp"
#include "kindling/nn/state_dict.hpp"
#include "kindling/tensor/source_location.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::nn {

/// What a non-strict load_state_dict found (a strict one throws instead).
struct LoadStateDictResult {
  std::vector<std::string> missing_keys;     ///< the module has them, the state dict does not
  std::vector<std::string> unexpected_keys;  ///< the state dict has them, the module does not
};

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  /// Moves the registries. Throws kd::Error if `other` registered a member child by reference.
  Module(Module&& other);
  Module& operator=(Module&&) = delete;

  // ---- running it ---------------------------------------------------------------------------------
  /// The computation. Override it: `Tensor forward(const Tensor& x) override { ... }`.
  virtual Tensor forward(const Tensor& input);
  /// `model(x)`: forward(x), plus the module's hooks when it has any, and (in anomaly mode) the
  /// caller's line for the nodes forward makes. Without hooks it is one test and the call.
  Tensor operator()(const Tensor& input, SourceLocation where = SourceLocation::current()) {
    if (!hooks_ && !autograd::is_anomaly_enabled()) [[likely]] return forward(input);
    return call_with_hooks(input, where);
  }

  // ---- hooks (PyTorch's register_forward_pre_hook, register_forward_hook,
  //      register_full_backward_hook); each returns a handle whose remove() takes the hook out ------
  /// `hook(module, input)` runs before forward; a defined result replaces the input.
  using ForwardPreHook = std::function<Tensor(Module&, const Tensor& input)>;
  /// `hook(module, input, output)` runs after forward; a defined result replaces the output.
  using ForwardHook = std::function<Tensor(Module&, const Tensor& input, const Tensor& output)>;
  /// `hook(module, grad_input, grad_output)` runs when the gradient w.r.t. the module's input has
  /// been computed; grad_input is undefined when the input does not require grad. A defined result
  /// replaces grad_input.
  using BackwardHook = std::function<Tensor(Module&, const Tensor& grad_input, const Tensor& grad_output)>;
  autograd::RemovableHandle register_forward_pre_hook(ForwardPreHook hook);
  autograd::RemovableHandle register_forward_hook(ForwardHook hook);
  autograd::RemovableHandle register_full_backward_hook(BackwardHook hook);

  // ---- registering --------------------------------------------------------------------------------
  /// Registers a parameter (marks it requires_grad unless `requires_grad` is false) and returns the
  /// same handle: `weight = register_parameter("weight", kd::empty({out, in}));`.
  Tensor register_parameter(const std::string& name, Tensor tensor, bool requires_grad = true);
  /// Registers state that is not trained. `persistent = false` keeps it out of state_dict().
  Tensor register_buffer(const std::string& name, Tensor tensor, bool persistent = true);
  /// Registers a member child by reference (the child must live as long as this module).
  template <class M>
  M& register_module(const std::string& name, M& child) {
    add_child(name, &child, nullptr);
    return child;
  }
  /// Registers a child this module shares ownership of.
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> child) {
    Module* raw = child.get();
    add_child(name, raw, std::shared_ptr<Module>(child, raw));
    return child;
  }

  /// Puts `module` in the place of the child registered as `name` (LibTorch's replace_module; what
  /// PyTorch's `model.fc = nn.Linear(512, 10)` does): same name, same position in the tree, so
  /// parameters(), state_dict() and printing see the new child. Throws kd::ValueError naming the
  /// children when there is no child `name`. Returns `module`.
  std::shared_ptr<Module> replace_module(const std::string& name, std::shared_ptr<Module> module);

  // ---- walking the tree (registration order, recursive, dotted names) ------------------------------
  std::vector<Tensor> parameters(bool recurse = true) const;
  /// ("fc1.weight", tensor), ... Each tensor appears once even if shared by two modules.
  std::vector<std::pair<std::string, Tensor>> named_parameters(const std::string& prefix = "",
                                                               bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(const std::string& prefix = "",
                                                            bool recurse = true) const;
  /// Direct children only.
  std::vector<Module*> children() const;
  std::vector<std::pair<std::string, Module*>> named_children() const;
  /// This module and every descendant (depth first, pre-order), each once.
  std::vector<Module*> modules();
  std::vector<std::pair<std::string, Module*>> named_modules(const std::string& prefix = "");
  /// Number of parameter elements (only those that require grad when `only_trainable`).
  std::int64_t num_parameters(bool only_trainable = false) const;

  // ---- modes --------------------------------------------------------------------------------------
  /// Training mode (Dropout drops, BatchNorm uses batch statistics) for this module and all children.
  Module& train(bool on = true);
  /// Evaluation mode: train(false).
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }

  /// Sets requires_grad on every parameter, recursively (PyTorch's Module.requires_grad_): the way to
  /// freeze a pretrained backbone, `model.requires_grad_(false)`, before giving a new head to the
  /// optimizer. Buffers are left alone.
  Module& requires_grad_(bool requires_grad = true);

  /// Clears the gradients of every parameter. PyTorch 1.13's default: set_to_none=false zeroes the
  /// .grad tensors in place; set_to_none=true drops them (the next backward allocates new ones).
  void zero_grad(bool set_to_none = false);
  /// Calls fn on every child (recursively) and then on this module, like PyTorch's apply.
  Module& apply(const std::function<void(Module&)>& fn);

  /// Converts floating-point parameters and buffers (and their grads) to `dtype` *in place*: every
  /// Tensor handle an optimizer holds keeps pointing at the same parameter. Integer buffers
  /// (num_batches_tracked) are left alone, as in PyTorch.
  Module& to(DType dtype);
  /// Moves parameters and buffers to `device` in place. Only the CPU exists in this build.
  Module& to(Device device);

  // ---- saving -------------------------------------------------------------------------------------
  /// Parameters and persistent buffers, with dotted names, in registration order. The tensors are
  /// detached views of the module's own memory (no copy).
  StateDict state_dict() const;
  /// Copies values from `state_dict` into this module's parameters and buffers (converting dtype).
  /// Everything is checked *before* anything is copied: missing keys, unexpected keys and shape
  /// mismatches are listed by name in one kd::ValueError. With strict=false, missing and unexpected
  /// keys are returned instead (shape mismatches still throw, as in PyTorch).
  LoadStateDictResult load_state_dict(const StateDict& state_dict, bool strict = true);

  // ---- printing -----------------------------------------------------------------------------------
  /// The class name PyTorch prints ("Linear"); for your own modules, the C++ class name.
  virtual std::string type_name() const;
  /// The text inside the parentheses ("in_features=784, out_features=128, bias=True").
  virtual std::string extra_repr() const { return ""; }
  /// The module tree exactly as PyTorch's print(model) shows it.
  std::string to_string() const;

  /// This module as a T (throws kd::Error naming both types when it is not one).
  template <class T>
  T& as() {
    if (auto* p = dynamic_cast<T*>(this)) return *p;
    throw_bad_cast(typeid(T).name());
  }

 protected:
  // [snippet: registry-types]
  struct Child {
    std::string name;
    Module* module;
    std::shared_ptr<Module> owner;  // null for a member registered by reference
  };
  struct Slot {
    std::string name;
    Tensor tensor;
    bool persistent = true;
  };
  // [end]
  const std::vector<Child>& child_slots() const { return children_; }

 private:
  void add_child(const std::string& name, Module* child, std::shared_ptr<Module> owner);
  void check_new_name(const std::string& name, const char* what) const;
  void for_each_tensor(const std::function<void(Tensor&)>& fn);
  [[noreturn]] void throw_bad_cast(const char* wanted) const;
  Tensor call_with_hooks(const Tensor& input, SourceLocation where);  // module_hooks.cpp
  struct Hooks;
  std::shared_ptr<Hooks> hooks_;  // null until a hook is registered (module_hooks.cpp)

  // [snippet: registry]
  std::vector<Slot> parameters_;  // in registration order: the order of parameters()
  std::vector<Slot> buffers_;
  std::vector<Child> children_;
  bool training_ = true;
  // [end]
};

/// Prints `module.to_string()`.
std::ostream& operator<<(std::ostream& os, const Module& module);

}  // namespace kindling::nn
