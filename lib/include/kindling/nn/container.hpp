#pragma once
/// @file
/// Containers: nn::Sequential (runs its children one after another) and nn::ModuleList (holds them,
/// you decide how to call them). Both *own* their children (through std::shared_ptr), so they can
/// be built from temporaries and moved around safely.
///
///     kd::nn::Sequential model(kd::nn::Linear(784, 128), kd::nn::ReLU(), kd::nn::Linear(128, 10));
///     model.push_back(kd::nn::Softmax(1));
///     auto& fc = model.at<kd::nn::Linear>(0);
#include <concepts>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "kindling/nn/module.hpp"

namespace kindling::nn {

namespace detail {
/// A module passed by value (a temporary, or std::move'd), or a shared pointer to one.
template <class M>
concept ModuleRvalue = std::derived_from<std::remove_cvref_t<M>, Module> && !std::is_lvalue_reference_v<M>;
template <class P> struct is_module_ptr : std::false_type {};
template <class T>
struct is_module_ptr<std::shared_ptr<T>> : std::bool_constant<std::derived_from<T, Module>> {};
template <class M>
concept ModuleOrPtr = ModuleRvalue<M> || is_module_ptr<std::remove_cvref_t<M>>::value;

template <class M>
std::shared_ptr<Module> to_shared(M&& m) {
  if constexpr (is_module_ptr<std::remove_cvref_t<M>>::value) {
    return m;
  } else {
    // Moves the module into the heap; a module that registered members by reference refuses.
    return std::make_shared<std::remove_cvref_t<M>>(std::move(m));
  }
}
}  // namespace detail

/// Base of Sequential and ModuleList: an indexable list of owned children named "0", "1", ...
class ModuleListBase : public Module {
 public:
  /// Appends a module (a temporary, a std::move'd module, or a std::shared_ptr to one).
  template <detail::ModuleOrPtr M>
  void push_back(M&& module) {
    append_shared(detail::to_shared(std::forward<M>(module)));
  }
  /// The i-th child (negative counts from the end, like Python); throws kd::IndexError when out of range.
  Module& operator[](std::ptrdiff_t index) const;
  /// The i-th child as a T (throws kd::Error when it is another type).
  template <class T>
  T& at(std::ptrdiff_t index) const {
    return (*this)[index].template as<T>();
  }
  std::size_t size() const { return child_slots().size(); }
  bool empty() const { return size() == 0; }

 protected:
  void append_shared(std::shared_ptr<Module> module);
};

/// Runs its children in order: forward(x) = child_n(...child_1(child_0(x))).
class Sequential : public ModuleListBase {
 public:
  Sequential() = default;
  template <detail::ModuleOrPtr... Ms>
    requires(sizeof...(Ms) > 0)
  explicit Sequential(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }
  /// PyTorch's name for push_back.
  template <detail::ModuleOrPtr M>
  Sequential& append(M&& module) {
    push_back(std::forward<M>(module));
    return *this;
  }
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Sequential"; }
};

/// Holds modules without calling them: iterate and call them yourself in forward().
class ModuleList : public ModuleListBase {
 public:
  ModuleList() = default;
  template <detail::ModuleOrPtr... Ms>
    requires(sizeof...(Ms) > 0)
  explicit ModuleList(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }
  template <detail::ModuleOrPtr M>
  ModuleList& append(M&& module) {
    push_back(std::forward<M>(module));
    return *this;
  }
  /// Throws: a ModuleList has no forward of its own.
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ModuleList"; }

  // Range-for over the children: `for (kd::nn::Module& m : list)`.
  class iterator {
   public:
    iterator(const ModuleList* list, std::size_t i) : list_(list), i_(i) {}
    Module& operator*() const { return (*list_)[static_cast<std::ptrdiff_t>(i_)]; }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }

   private:
    const ModuleList* list_;
    std::size_t i_;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }
};

}  // namespace kindling::nn
