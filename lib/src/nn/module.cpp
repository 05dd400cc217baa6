// nn::Module: the registries of parameters, buffers and children, and the recursive walks over them.
#include "kindling/nn/module.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <unordered_set>

#include "kindling/autograd/autograd_meta.hpp"
#include "kindling/autograd/grad_mode.hpp"

namespace kindling::nn {

Module::Module(Module&& other)
    : parameters_(std::move(other.parameters_)),
      buffers_(std::move(other.buffers_)),
      children_(std::move(other.children_)),
      training_(other.training_),
      hooks_(std::move(other.hooks_)) {
  for (const Child& c : children_) {
    if (!c.owner) {
      // Put the registries back so `other` stays usable, then refuse.
      other.parameters_ = std::move(parameters_);
      other.buffers_ = std::move(buffers_);
      other.children_ = std::move(children_);
      other.hooks_ = std::move(hooks_);
      throw Error("cannot move a module that registered the member '" + c.name +
                  "' by reference: the registry would keep pointing into the moved-from object. "
                  "Hint: construct the module where it lives, or hold it in a std::shared_ptr "
                  "(std::make_shared<MyNet>()) and pass that to Sequential/register_module.");
    }
  }
}

Tensor Module::forward(const Tensor&) {
  throw NotImplemented(type_name() +
                       ": forward(const Tensor&) is not implemented. Hint: declare it in your module as "
                       "`kd::Tensor forward(const kd::Tensor& x) override` (non-const, exactly that signature); "
                       "a forward with other arguments must be called as model.forward(a, b), not model(a, b).");
}

// ---- registering ------------------------------------------------------------------------------
void Module::check_new_name(const std::string& name, const char* what) const {
  if (name.empty()) throw ValueError(std::string(what) + ": the name must not be empty");
  if (name.find('.') != std::string::npos) {
    throw ValueError(std::string(what) + ": name '" + name +
                     "' must not contain '.' (dots separate the levels of dotted names like fc1.weight)");
  }
  auto taken = [&](const auto& list) {
    for (const auto& s : list)
      if (s.name == name) return true;
    return false;
  };
  if (taken(parameters_) || taken(buffers_) || taken(children_)) {
    throw ValueError(std::string(what) + ": '" + name + "' is already registered in " + type_name() +
                     ". Hint: every parameter, buffer and child needs its own name.");
  }
}

// [snippet: register]
Tensor Module::register_parameter(const std::string& name, Tensor tensor,
                                  bool requires_grad) {
  check_new_name(name, "register_parameter");
  if (!tensor.defined())
    throw ValueError("register_parameter: '" + name + "' is an undefined tensor");
  if (requires_grad) {
    if (!tensor.is_floating_point()) {
      throw DTypeError("register_parameter: '" + name + "' has dtype " +
                       dtype_name(tensor.dtype()) +
                       "; only floating-point tensors can require gradients");
    }
    if (!tensor.is_leaf()) {
      throw ValueError("register_parameter: '" + name +
                       "' is the result of an operation (it has a grad_fn); a "
                       "parameter must be a leaf. Hint: register t.detach().");
    }
    tensor.requires_grad_(true);
  }
  parameters_.push_back({name, std::move(tensor), true});
  return parameters_.back().tensor;
}

Tensor Module::register_buffer(const std::string& name, Tensor tensor,
                               bool persistent) {
  check_new_name(name, "register_buffer");
  if (!tensor.defined())
    throw ValueError("register_buffer: '" + name + "' is an undefined tensor");
  buffers_.push_back({name, std::move(tensor), persistent});
  return buffers_.back().tensor;
}

void Module::add_child(const std::string& name, Module* child,
                       std::shared_ptr<Module> owner) {
  check_new_name(name, "register_module");
  if (child == this) {
    throw ValueError("register_module: a module cannot be its own child ('" + name +
                     "')");
  }
  children_.push_back({name, child, std::move(owner)});
}
// [end]

std::shared_ptr<Module> Module::replace_module(const std::string& name, std::shared_ptr<Module> module) {
  if (!module) throw ValueError("replace_module: the new module for '" + name + "' is null");
  if (module.get() == this) throw ValueError("replace_module: a module cannot be its own child ('" + name + "')");
  for (Child& c : children_) {
    if (c.name != name) continue;
    c.module = module.get();
    c.owner = module;
    return module;
  }
  std::string known;
  for (const Child& c : children_) known += (known.empty() ? "" : ", ") + c.name;
  throw ValueError("replace_module: " + type_name() + " has no child named '" + name + "' (children: " +
                   (known.empty() ? "none" : known) + "). Hint: register_module adds a new child.");
}

Module& Module::requires_grad_(bool requires_grad) {
  for (Tensor& p : parameters()) p.requires_grad_(requires_grad);
  return *this;
}

// ---- walking ----------------------------------------------------------------------------------

// named_modules, named_parameters and named_buffers are chapter 3's exercise 4 (nn/pieces.hpp): in the
// answer file.

std::vector<Module*> Module::modules() {
  std::vector<Module*> out;
  for (auto& [name, m] : named_modules()) out.push_back(m);
  return out;
}

std::vector<Module*> Module::children() const {
  std::vector<Module*> out;
  for (auto& [name, m] : named_children()) out.push_back(m);
  return out;
}

// A module registered under two names is one child: listed once, under its first name, as
// PyTorch's named_children (a memo set). The printout and state_dict() still show every name.
std::vector<std::pair<std::string, Module*>> Module::named_children() const {
  std::vector<std::pair<std::string, Module*>> out;
  for (const Child& c : children_) {
    bool seen = false;
    for (const auto& [name, m] : out) seen = seen || m == c.module;  // a handful of children: no set
    if (!seen) out.emplace_back(c.name, c.module);
  }
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters("", recurse)) out.push_back(t);
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_buffers("", recurse)) out.push_back(t);
  return out;
}

std::int64_t Module::num_parameters(bool only_trainable) const {
  std::int64_t n = 0;
  for (const Tensor& p : parameters())
    if (!only_trainable || p.requires_grad()) n += p.numel();
  return n;
}

// ---- modes ------------------------------------------------------------------------------------
// [snippet: train]
Module& Module::train(bool on) {
  training_ = on;
  for (Module* c : children()) c->train(on);
  return *this;
}
// [end]

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    if (set_to_none) p.set_grad(Tensor());
    else autograd::zero_grad_in_place(p);  // zeroes .grad, and lets the next backward write it
  }
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (Module* c : children()) c->apply(fn);  // a child under two names gets fn once, as in PyTorch
  fn(*this);
  return *this;
}

// ---- to(dtype) / to(device): swap the *contents* of each TensorImpl, keep the handle -------------
namespace {
void replace_contents(Tensor& target, const Tensor& converted) {
  if (converted.is_same(target)) return;
  TensorImpl* impl = target.impl();
  const TensorImpl* src = converted.impl();
  impl->storage = src->storage;
  impl->shape = src->shape;
  impl->strides = src->strides;
  impl->offset = src->offset;
  impl->dtype = src->dtype;
}
}  // namespace

void Module::for_each_tensor(const std::function<void(Tensor&)>& fn) {
  std::unordered_set<const TensorImpl*> seen;
  for (Module* m : modules()) {
    for (Slot& s : m->parameters_)
      if (seen.insert(s.tensor.impl()).second) fn(s.tensor);
    for (Slot& s : m->buffers_)
      if (seen.insert(s.tensor.impl()).second) fn(s.tensor);
  }
}

Module& Module::to(DType dtype) {
  if (!is_floating_point(dtype)) {
    throw DTypeError(std::string("Module::to: can only convert parameters to a floating-point dtype, got ") +
                     dtype_name(dtype));
  }
  NoGradGuard no_grad;
  for_each_tensor([&](Tensor& t) {
    if (!t.is_floating_point()) return;  // num_batches_tracked stays int64
    replace_contents(t, t.detach().to(dtype));
    Tensor g = t.grad();
    if (g.defined()) replace_contents(g, g.to(dtype));
  });
  return *this;
}

Module& Module::to(Device device) {
  NoGradGuard no_grad;
  for_each_tensor([&](Tensor& t) {
    replace_contents(t, t.detach().to(device));
    Tensor g = t.grad();
    if (g.defined()) replace_contents(g, g.to(device));
  });
  return *this;
}

// ---- names ------------------------------------------------------------------------------------
std::string Module::type_name() const {
  // The C++ class name without namespaces: "SimpleNet" for `struct SimpleNet : kd::nn::Module`.
  const char* mangled = typeid(*this).name();
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = (status == 0 && demangled) ? demangled : mangled;
  std::free(demangled);
  // Drop template arguments' namespaces only at the top level: cut at the last "::" before any '<'.
  const auto angle = name.find('<');
  const auto colon = name.rfind("::", angle);
  if (colon != std::string::npos) name = name.substr(colon + 2);
  if (name.rfind("(anonymous namespace)::", 0) == 0) name = name.substr(23);
  return name;
}

void Module::throw_bad_cast(const char* wanted) const {
  int status = 0;
  char* demangled = abi::__cxa_demangle(wanted, nullptr, nullptr, &status);
  std::string w = (status == 0 && demangled) ? demangled : wanted;
  std::free(demangled);
  throw Error("Module::as: this module is a " + type_name() + ", not a " + w);
}

}  // namespace kindling::nn
