// StateDict lookups, Module::state_dict() and Module::load_state_dict() with errors by name.
#include "kindling/nn/state_dict.hpp"

#include <algorithm>
#include <unordered_set>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/nn/module.hpp"

namespace kindling {

const Tensor& StateDict::at(const std::string& key) const {
  auto it = index_.find(key);
  if (it == index_.end()) {
    std::string known;
    for (std::size_t i = 0; i < items_.size() && i < 8; ++i) known += (i ? ", " : "") + items_[i].first;
    if (items_.size() > 8) known += ", ...";
    throw IndexError("StateDict: no key '" + key + "' (keys: " + (known.empty() ? "none" : known) + ")");
  }
  return items_[it->second].second;
}

Tensor& StateDict::at(const std::string& key) {
  return const_cast<Tensor&>(static_cast<const StateDict&>(*this).at(key));
}

bool StateDict::erase(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return false;
  const std::size_t pos = it->second;
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
  index_.erase(it);
  for (auto& [k, i] : index_)
    if (i > pos) --i;
  return true;
}

}  // namespace kindling

namespace kindling::nn {

StateDict Module::state_dict() const {
  // Every (dotted name, tensor) that belongs in a state dict: parameters, then persistent buffers,
  // module by module in registration order (PyTorch's order). A submodule registered under two names
  // appears under both, as in PyTorch's state_dict (unlike parameters() and named_children(), which
  // list it once): the walk reads the registry itself. `path` (the modules being visited) only guards
  // against a module that contains itself.
  std::vector<std::pair<std::string, Tensor>> all;
  std::unordered_set<const Module*> path;
  std::function<void(const Module&, const std::string&)> collect = [&](const Module& m, const std::string& prefix) {
    if (!path.insert(&m).second) return;
    for (const auto& [name, t] : m.named_parameters(prefix, /*recurse=*/false)) all.emplace_back(name, t);
    for (const auto& [name, t] : m.named_buffers(prefix, /*recurse=*/false)) all.emplace_back(name, t);
    for (const Child& c : m.children_) collect(*c.module, prefix.empty() ? c.name : prefix + "." + c.name);
    path.erase(&m);
  };
  collect(*this, "");
  // Non-persistent buffers stay out: find them by name.
  std::unordered_set<std::string> non_persistent;
  std::function<void(const Module&, const std::string&)> mark = [&](const Module& m, const std::string& p) {
    for (const Slot& s : m.buffers_)
      if (!s.persistent) non_persistent.insert(p.empty() ? s.name : p + "." + s.name);
    for (const Child& c : m.children_) mark(*c.module, p.empty() ? c.name : p + "." + c.name);
  };
  mark(*this, "");
  StateDict sd;
  for (auto& [name, t] : all)
    if (!non_persistent.count(name)) sd.insert(name, t.detach());
  return sd;
}

// load_state_dict is chapter 3's exercise 5 (nn/pieces.hpp): in the answer file.

}  // namespace kindling::nn
