// ch03.ex5 — load_state_dict: copy a state dict's tensors into a module's parameters and buffers, by name.
//
// nn::Module::load_state_dict (kindling/nn/module.hpp): loading a model saved with kd::save, a checkpoint
// (kd::train::load_checkpoint), or PyTorch's weights. Everything is checked before anything is copied.
#include <string>
#include <vector>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/nn/module.hpp"
#include "kindling/nn/state_dict.hpp"

namespace kindling::nn {

LoadStateDictResult Module::load_state_dict(const StateDict& state_dict, bool strict) {
  // BEGIN SOLUTION ex5: list missing and unexpected keys and shape mismatches; throw or copy under NoGradGuard
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
  // END SOLUTION
}

}  // namespace kindling::nn
