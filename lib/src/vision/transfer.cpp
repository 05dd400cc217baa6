// load_pretrained and the fine-tuning groups: the library's side of chapter 9's exercises 3 and 4
// (vision/pieces.hpp). The pieces decide (which keys load; which parameters freeze and train at which
// lr); this file checks the arguments first and what the pieces return after, then acts on it.
#include "kindling/vision/transfer.hpp"

#include <set>
#include <string>

#include "kindling/tensor/error.hpp"
#include "vision/pieces.hpp"

namespace kindling::vision::models {

namespace {

std::string children_of(const nn::Module& model) {
  std::string names;
  for (const auto& [name, child] : model.named_children()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

}  // namespace

TransferReport load_pretrained(nn::Module& model, const StateDict& pretrained) {
  const StateDict own = model.state_dict();
  TransferReport report = detail::match_pretrained(own, pretrained);
  // What the piece says to load must exist on both sides with one shape, once: anything else would
  // make load_state_dict below throw, or copy a tensor twice.
  StateDict subset;
  for (const std::string& key : report.loaded) {
    if (!own.contains(key) || !pretrained.contains(key))
      throw Error("load_pretrained: match_pretrained (ch09.ex3) says to load '" + key + "', which the " +
                  (own.contains(key) ? "checkpoint" : "model") + " does not have");
    if (own.at(key).shape() != pretrained.at(key).shape())
      throw Error("load_pretrained: match_pretrained (ch09.ex3) says to load '" + key + "', whose shapes differ (" +
                  shape_str(pretrained.at(key).shape()) + " in the checkpoint, " + shape_str(own.at(key).shape()) +
                  " in the model)");
    if (subset.contains(key))
      throw Error("load_pretrained: match_pretrained (ch09.ex3) lists '" + key + "' twice in loaded");
    subset.insert(key, pretrained.at(key));
  }
  model.load_state_dict(subset, /*strict=*/false);
  return report;
}

std::vector<ParamGroup> fine_tuning_groups(nn::Module& model, const FineTuneOptions& options) {
  std::set<std::string> children;
  for (const auto& [name, child] : model.named_children()) children.insert(name);
  auto check_child = [&](const std::string& name, const char* what) {
    if (!children.count(name))
      throw ValueError("fine_tuning_groups: " + model.type_name() + " has no child '" + name + "' (" + what +
                       "); its children: " + children_of(model));
  };
  check_child(options.head, "the head");
  for (const std::string& name : options.frozen) {
    check_child(name, "to freeze");
    if (name == options.head)
      throw ValueError("fine_tuning_groups: the head '" + name + "' is also frozen: it would never train");
  }
  if (!(options.lr >= 0) || !(options.head_lr >= 0))
    throw ValueError("fine_tuning_groups: learning rates must be >= 0, got lr " + std::to_string(options.lr) +
                     " and head_lr " + std::to_string(options.head_lr));

  std::vector<ParamGroup> groups = detail::split_for_fine_tuning(model, options);
  // Every group's names and tensors go together, each parameter at most once and trainable: an
  // optimizer given a frozen tensor, or one tensor twice, refuses it later with less to go on.
  if (groups.size() != 2)
    throw Error("fine_tuning_groups: split_for_fine_tuning (ch09.ex4) returned " + std::to_string(groups.size()) +
                " groups; expected 2 (the backbone's, the head's)");
  std::set<const void*> seen;
  for (const ParamGroup& g : groups) {
    if (g.names.size() != g.params.size())
      throw Error("fine_tuning_groups: split_for_fine_tuning (ch09.ex4) returned a group of " +
                  std::to_string(g.params.size()) + " parameters with " + std::to_string(g.names.size()) + " names");
    for (std::size_t i = 0; i < g.params.size(); ++i) {
      if (!g.params[i].defined() || !g.params[i].requires_grad())
        throw Error("fine_tuning_groups: split_for_fine_tuning (ch09.ex4) put '" + g.names[i] +
                    "' in a group, but it does not require grad (frozen)");
      if (g.params[i].numel() > 0 && !seen.insert(g.params[i].raw_data_ptr()).second)
        throw Error("fine_tuning_groups: split_for_fine_tuning (ch09.ex4) put '" + g.names[i] + "' in a group twice");
    }
  }
  return groups;
}

std::unique_ptr<optim::SGD> fine_tuning_sgd(nn::Module& model, const FineTuneOptions& options, optim::SGDOptions sgd) {
  std::unique_ptr<optim::SGD> opt;
  for (const ParamGroup& g : fine_tuning_groups(model, options)) {
    if (g.params.empty()) continue;  // everything but the head frozen: no backbone group
    optim::SGDOptions o = sgd;
    o.lr = g.lr;
    if (!opt)
      opt = std::make_unique<optim::SGD>(g.params, o);
    else
      opt->add_param_group(g.params, o);
  }
  if (!opt) throw ValueError("fine_tuning_sgd: " + model.type_name() + " has no parameter to train");
  return opt;
}

}  // namespace kindling::vision::models
