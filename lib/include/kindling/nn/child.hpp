#pragma once
/// @file
/// nn::Child<M>: a replaceable child module, the C++ for PyTorch's `model.fc = nn.Linear(512, 10)`.
///
///     struct Net : kd::nn::Module {
///       kd::nn::Child<kd::nn::Linear> fc;
///       Net() { fc.bind(*this, "fc", kd::nn::Linear(512, 1000)); }
///       kd::Tensor forward(const kd::Tensor& x) override { return fc(x); }
///     };
///     net.fc = kd::nn::Linear(512, 10);   // re-registered: parameters(), state_dict(), print see it
///     net.fc->weight;                     // the Linear's members while it is a Linear
///     net.fc = kd::nn::Sequential(kd::nn::Dropout(0.2), kd::nn::Linear(512, 10));  // any module
///     net.fc.as<kd::nn::Sequential>();
///
/// A member registered by reference (`register_module("fc", fc)`) cannot be swapped for a module of
/// another type, and assigning to it would bypass the registry; a Child holds its module through a
/// std::shared_ptr and re-registers it under the same name (Module::replace_module), so the new
/// head takes the old one's place in the tree, as it does in PyTorch.
#include <concepts>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "kindling/nn/module.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::nn {

template <class M = Module>
class Child {
 public:
  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  /// Registers `module` as `parent`'s child `name` (once, in the parent's constructor).
  template <class N>
    requires std::derived_from<std::remove_cvref_t<N>, Module>
  void bind(Module& parent, std::string name, N&& module) {
    bind(parent, std::move(name), std::make_shared<std::remove_cvref_t<N>>(std::forward<N>(module)));
  }
  template <class N>
    requires std::derived_from<N, Module>
  void bind(Module& parent, std::string name, std::shared_ptr<N> module) {
    if (parent_) throw Error("nn::Child::bind: '" + name_ + "' is already bound");
    parent_ = &parent;
    name_ = std::move(name);
    module_ = parent.register_module(name_, std::shared_ptr<Module>(std::move(module)));
  }

  /// Replaces the child (any module: a Linear, a Sequential head, an Identity) in the parent's tree.
  template <class N>
    requires(std::derived_from<std::remove_cvref_t<N>, Module> && !std::is_lvalue_reference_v<N>)
  Child& operator=(N&& module) {
    return *this = std::make_shared<std::remove_cvref_t<N>>(std::forward<N>(module));
  }
  template <class N>
    requires std::derived_from<N, Module>
  Child& operator=(std::shared_ptr<N> module) {
    if (!parent_) throw Error("nn::Child: assigned before bind() registered it in a parent module");
    module_ = parent_->replace_module(name_, std::shared_ptr<Module>(std::move(module)));
    return *this;
  }

  /// The child as an M (throws kd::Error naming both types once it was replaced by another type).
  M* operator->() const { return &get(); }
  M& operator*() const { return get(); }
  M& get() const {
    if constexpr (std::is_same_v<M, Module>) {
      return module();
    } else {
      if (auto* p = dynamic_cast<M*>(&module())) return *p;
      throw Error("nn::Child '" + name_ + "' now holds a " + module().type_name() + ", not the " +
                  typeid(M).name() + " it was declared with. Hint: use .as<T>() with the new type.");
    }
  }
  /// The child as a T.
  template <class T>
  T& as() const {
    return module().template as<T>();
  }
  /// The child whatever its type.
  Module& module() const {
    if (!module_) throw Error("nn::Child: used before bind() registered it in a parent module");
    return *module_;
  }
  std::shared_ptr<Module> ptr() const { return module_; }
  const std::string& name() const { return name_; }

  /// Runs the child: `fc(x)` (hooks and anomaly mode included, like Module::operator()).
  Tensor operator()(const Tensor& x, SourceLocation where = SourceLocation::current()) const {
    return module()(x, where);
  }

 private:
  Module* parent_ = nullptr;
  std::string name_;
  std::shared_ptr<Module> module_;
};

}  // namespace kindling::nn
