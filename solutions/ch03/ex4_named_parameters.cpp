// ex4 — walking the module tree: a module's own parameters, then its children's, with dotted names.
#include "ch03/module_exercises.hpp"

#include <functional>
#include <unordered_set>

namespace kindling::exercises::ch03 {

std::vector<std::pair<std::string, Tensor>> collect_named_parameters(const nn::Module& module,
                                                                     const std::string& prefix) {
  // BEGIN SOLUTION ex4: depth-first walk; own parameters (recurse=false) first, then each child with "name."
  std::vector<std::pair<std::string, Tensor>> out;
  std::unordered_set<const TensorImpl*> seen_tensors;  // a shared parameter is listed once
  std::unordered_set<const nn::Module*> seen_modules;  // so is a module registered twice
  auto join = [](const std::string& a, const std::string& b) { return a.empty() ? b : a + "." + b; };
  std::function<void(const nn::Module&, const std::string&)> walk = [&](const nn::Module& m,
                                                                        const std::string& path) {
    if (!seen_modules.insert(&m).second) return;
    for (const auto& [name, p] : m.named_parameters("", /*recurse=*/false))
      if (seen_tensors.insert(p.impl()).second) out.emplace_back(join(path, name), p);
    for (const auto& [name, child] : m.named_children()) walk(*child, join(path, name));
  };
  walk(module, prefix);
  return out;
  // END SOLUTION
}

std::int64_t count_parameters(const nn::Module& module, bool only_trainable) {
  // BEGIN SOLUTION ex4: sum numel() over collect_named_parameters (skip requires_grad == false if asked)
  std::int64_t n = 0;
  for (const auto& [name, p] : collect_named_parameters(module))
    if (!only_trainable || p.requires_grad()) n += p.numel();
  return n;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch03
