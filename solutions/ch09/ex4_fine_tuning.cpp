// ch09.ex4 — fine-tuning's split of a model: frozen stages, the backbone at a small lr, the new head
// at a larger one.
//
// vision::models::detail::split_for_fine_tuning (lib/src/vision/pieces.hpp): fine_tuning_groups
// (lib/src/vision/transfer.cpp) checks the names and learning rates, calls it, and checks the groups it
// returns; fine_tuning_sgd builds an SGD with one parameter group per group.
#include <algorithm>
#include <string>

#include "vision/pieces.hpp"

namespace kindling::vision::models::detail {

std::vector<ParamGroup> split_for_fine_tuning(nn::Module& model, const FineTuneOptions& options) {
  // BEGIN SOLUTION ex4: the top-level child of each parameter decides: frozen, head or backbone
  ParamGroup backbone, head;
  backbone.lr = options.lr;
  head.lr = options.head_lr;
  for (auto& [name, p] : model.named_parameters()) {
    // "layer1.0.conv1.weight" belongs to the child "layer1"
    const std::string child = name.substr(0, name.find('.'));
    const bool frozen = std::find(options.frozen.begin(), options.frozen.end(), child) != options.frozen.end();
    p.requires_grad_(!frozen);  // frozen: no gradient is computed for it, and no optimizer gets it
    if (frozen) continue;
    ParamGroup& group = child == options.head ? head : backbone;
    group.names.push_back(name);
    group.params.push_back(p);
  }
  return {backbone, head};
  // END SOLUTION
}

}  // namespace kindling::vision::models::detail
