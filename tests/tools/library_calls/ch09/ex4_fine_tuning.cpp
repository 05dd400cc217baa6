// A "library call" submission: the fine-tuning split handed back to the library's public
// fine_tuning_groups, which calls this piece again. Must earn nothing.
#include "vision/pieces.hpp"

namespace kindling::vision::models::detail {
std::vector<ParamGroup> split_for_fine_tuning(nn::Module& model, const FineTuneOptions& options) {
  return fine_tuning_groups(model, options);
}
}  // namespace kindling::vision::models::detail
