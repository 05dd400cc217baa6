// ch03.ex4 — walking the module tree: named_modules, named_parameters, named_buffers with dotted names.
//
// nn::Module's named_modules, named_parameters and named_buffers (kindling/nn/module.hpp): parameters(),
// buffers(), state_dict(), load_state_dict, to(), zero_grad() and every optimizer list parameters
// through them. Members of Module, they see its registries: parameters_, buffers_ (Slot: name, tensor)
// and children_ (Child: name, module), in registration order.
#include <functional>
#include <string>
#include <unordered_set>

#include "kindling/nn/module.hpp"

namespace kindling::nn {

// BEGIN SOLUTION ex4: helpers: a dotted name, and one walk for parameters and buffers
namespace {
std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// Walks slots (parameters or buffers) of the module tree in registration order, each tensor once.
template <class Get>
std::vector<std::pair<std::string, Tensor>> named_slots(const Module& root, const std::string& prefix,
                                                        bool recurse, Get get) {
  std::vector<std::pair<std::string, Tensor>> out;
  std::unordered_set<const TensorImpl*> seen_tensors;
  std::unordered_set<const Module*> seen_modules;
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m, const std::string& p) {
    if (!seen_modules.insert(&m).second) return;
    for (const auto& [name, tensor] : get(m))
      if (seen_tensors.insert(tensor.impl()).second) out.emplace_back(join_name(p, name), tensor);
    if (!recurse) return;
    for (const auto& [name, child] : m.named_children()) walk(*child, join_name(p, name));
  };
  walk(root, prefix);
  return out;
}
}  // namespace
// STUB
// END SOLUTION

std::vector<std::pair<std::string, Module*>> Module::named_modules(const std::string& prefix) {
  // BEGIN SOLUTION ex4: this module, then each child's tree, depth first; each module once
  std::vector<std::pair<std::string, Module*>> out;
  std::unordered_set<const Module*> seen;
  std::function<void(Module*, const std::string&)> walk = [&](Module* m, const std::string& p) {
    if (!seen.insert(m).second) return;
    out.emplace_back(p, m);
    for (const Child& c : m->children_) walk(c.module, join_name(p, c.name));
  };
  walk(this, prefix);
  return out;
  // END SOLUTION
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(const std::string& prefix,
                                                                     bool recurse) const {
  // BEGIN SOLUTION ex4: own parameters first (each tensor once), then the children's with dotted names
  return named_slots(*this, prefix, recurse, [](const Module& m) {
    std::vector<std::pair<std::string, Tensor>> v;
    for (const Slot& s : m.parameters_) v.emplace_back(s.name, s.tensor);
    return v;
  });
  // END SOLUTION
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(const std::string& prefix, bool recurse) const {
  // BEGIN SOLUTION ex4: the same walk over buffers_
  return named_slots(*this, prefix, recurse, [](const Module& m) {
    std::vector<std::pair<std::string, Tensor>> v;
    for (const Slot& s : m.buffers_) v.emplace_back(s.name, s.tensor);
    return v;
  });
  // END SOLUTION
}

}  // namespace kindling::nn
