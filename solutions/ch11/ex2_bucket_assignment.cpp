// ch11.ex2 — PyTorch's bucket assignment: gradients travel in buckets of about 25 MiB (the first one
// smaller, so that its all-reduce starts early), one dtype per bucket.
//
// distributed::detail::assign_buckets (lib/src/distributed/pieces.hpp): compute_bucket_assignment_by_size
// (lib/src/distributed/ddp.cpp) checks the limits, calls it, and checks that every tensor landed in
// exactly one bucket of one dtype; DistributedDataParallel's constructor calls that with the
// parameters in reverse order of registration and limits {1 MiB, 25 MiB}.
#include <algorithm>
#include <map>

#include "distributed/pieces.hpp"

namespace kindling::distributed::detail {

std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<Tensor>& tensors,
                                                     const std::vector<std::int64_t>& limits) {
  // BEGIN SOLUTION ex2: one open bucket per dtype, closed when it reaches its limit; sort by first index
  struct Open {
    std::vector<std::size_t> indices;
    std::int64_t bytes = 0;
    std::size_t limit = 0;  // which of `limits` this dtype's open bucket must reach
  };
  std::map<DType, Open> open;
  std::vector<std::vector<std::size_t>> done;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    Open& b = open[tensors[i].dtype()];
    b.indices.push_back(i);
    b.bytes += static_cast<std::int64_t>(tensors[i].nbytes());
    if (b.bytes >= limits[b.limit]) {
      done.push_back(std::move(b.indices));
      b.indices.clear();
      b.bytes = 0;
      if (b.limit + 1 < limits.size()) ++b.limit;  // the last limit applies to every later bucket
    }
  }
  for (auto& [dtype, b] : open)
    if (!b.indices.empty()) done.push_back(std::move(b.indices));
  std::sort(done.begin(), done.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return done;
  // END SOLUTION
}

}  // namespace kindling::distributed::detail
