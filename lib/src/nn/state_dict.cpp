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

namespace {
// Every (dotted name, tensor) that belongs in a state dict: parameters, then persistent buffers,
// module by module in registration order (PyTorch's order).
void collect(const Module& m, const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out,
             std::unordered_set<const Module*>& seen) {
  if (!seen.insert(&m).second) return;
  for (const auto& [name, t] : m.named_parameters(prefix, /*recurse=*/false)) out.emplace_back(name, t);
  for (const auto& [name, t] : m.named_buffers(prefix, /*recurse=*/false)) out.emplace_back(name, t);
  for (const auto& [name, child] : m.named_children()) collect(*child, prefix.empty() ? name : prefix + "." + name, out, seen);
}
}  // namespace

StateDict Module::state_dict() const {
  std::vector<std::pair<std::string, Tensor>> all;
  std::unordered_set<const Module*> seen;
  collect(*this, "", all, seen);
  // Non-persistent buffers stay out: find them by name.
  std::unordered_set<std::string> non_persistent;
  std::function<void(const Module&, const std::string&)> mark = [&](const Module& m, const std::string& p) {
    for (const Slot& s : m.buffers_)
      if (!s.persistent) non_persistent.insert(p.empty() ? s.name : p + "." + s.name);
    for (const auto& [name, child] : m.named_children()) mark(*child, p.empty() ? name : p + "." + name);
  };
  mark(*this, "");
  StateDict sd;
  for (auto& [name, t] : all)
    if (!non_persistent.count(name)) sd.insert(name, t.detach());
  return sd;
}

LoadStateDictResult Module::load_state_dict(const StateDict& state_dict, bool strict) {
  const StateDict own = this->state_dict();
  LoadStateDictResult result;
  std::vector<std::string> mismatches;
  for (const auto& [name, target] : own) {
    if (!state_dict.contains(name)) {
      result.missing_keys.push_back(name);
      continue;
    }
    const Tensor& src = state_dict.at(name);
    if (!src.defined()) {
      mismatches.push_back("'" + name + "' is an undefined tensor in the state dict");
    } else if (src.shape() != target.shape()) {
      mismatches.push_back("size mismatch for '" + name + "': copying a param with shape " + shape_str(src.shape()) +
                           " from checkpoint, the shape in current model is " + shape_str(target.shape()));
    }
  }
  for (const auto& [name, t] : state_dict)
    if (!own.contains(name)) result.unexpected_keys.push_back(name);

  const bool key_errors = strict && (!result.missing_keys.empty() || !result.unexpected_keys.empty());
  if (key_errors || !mismatches.empty()) {
    std::string msg = "Error(s) in loading state_dict for " + type_name() + " (nothing was copied):";
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + ("\"" + v[i] + "\"");
      return s;
    };
    if (key_errors && !result.missing_keys.empty()) msg += "\n\tMissing key(s) in state_dict: " + list(result.missing_keys) + ".";
    if (key_errors && !result.unexpected_keys.empty())
      msg += "\n\tUnexpected key(s) in state_dict: " + list(result.unexpected_keys) + ".";
    for (const auto& m : mismatches) msg += "\n\t" + m + ".";
    msg += "\nHint: compare model.state_dict().keys() with the checkpoint's keys; load_state_dict(sd, "
           "/*strict=*/false) skips missing and unexpected keys (shape mismatches always fail).";
    throw ValueError(msg);
  }
  // Everything checked: copy the values in place (the module keeps its own tensors and dtypes).
  NoGradGuard no_grad;
  for (const auto& [name, target] : own) {
    if (!state_dict.contains(name)) continue;
    Tensor dst = target;
    dst.copy_(state_dict.at(name));
  }
  return result;
}

}  // namespace kindling::nn
