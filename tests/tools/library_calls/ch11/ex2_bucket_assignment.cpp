// A "library call" submission: the bucket assignment handed back to the library's public
// compute_bucket_assignment_by_size, which calls this piece again. Must earn nothing.
#include "distributed/pieces.hpp"

namespace kindling::distributed::detail {
std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<Tensor>& tensors,
                                                     const std::vector<std::int64_t>& limits) {
  return compute_bucket_assignment_by_size(tensors, limits);
}
}  // namespace kindling::distributed::detail
