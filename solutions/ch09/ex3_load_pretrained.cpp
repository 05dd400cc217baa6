// ch09.ex3 — which keys of a pretrained checkpoint fit a model with a new head: same name and same
// shape load; the rest is reported, by kind.
//
// vision::models::detail::match_pretrained (lib/src/vision/pieces.hpp): load_pretrained
// (lib/src/vision/transfer.cpp) calls it with the model's state_dict and the checkpoint, checks the keys
// it says to load, copies them, and returns its report.
#include "vision/pieces.hpp"

namespace kindling::vision::models::detail {

TransferReport match_pretrained(const StateDict& own, const StateDict& pretrained) {
  // BEGIN SOLUTION ex3: every model key is loaded, mismatched or missing; the others are unexpected
  TransferReport report;
  for (const auto& [key, tensor] : own) {
    if (!pretrained.contains(key)) {
      report.missing_keys.push_back(key);
    } else if (pretrained.at(key).shape() != tensor.shape()) {
      report.mismatched_keys.push_back(key);  // a new head: fc.weight [1000, 512] there, [10, 512] here
    } else {
      report.loaded.push_back(key);
    }
  }
  for (const auto& [key, tensor] : pretrained)
    if (!own.contains(key)) report.unexpected_keys.push_back(key);
  return report;
  // END SOLUTION
}

}  // namespace kindling::vision::models::detail
