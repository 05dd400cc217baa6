// ch11.ex1 — DistributedSampler's shard of an epoch: pad (or cut) the epoch's order so that every
// rank gets as many indices, then deal it out like cards, one index to each rank in turn.
//
// distributed::detail::sampler_shard (lib/src/distributed/pieces.hpp): DistributedSampler::indices
// (lib/src/distributed/sampler.cpp) draws the epoch's order from seed + epoch, calls it, and checks
// that it returned num_samples indices of the dataset.
#include "distributed/pieces.hpp"

namespace kindling::distributed::detail {

std::vector<std::int64_t> sampler_shard(const std::vector<std::int64_t>& order, std::int64_t num_replicas,
                                        std::int64_t rank, bool drop_last) {
  // BEGIN SOLUTION ex1: pad by repeating the order (or cut it), then take every num_replicas-th from rank
  const auto n = static_cast<std::int64_t>(order.size());
  // Indices per rank: every index at least once (padding), or none twice (drop_last).
  const std::int64_t per_rank = drop_last ? n / num_replicas : (n + num_replicas - 1) / num_replicas;
  const std::int64_t total = per_rank * num_replicas;
  std::vector<std::int64_t> mine;
  mine.reserve(static_cast<std::size_t>(per_rank));
  // Position i of the padded order is order[i mod n]: the padding repeats the order from its start.
  for (std::int64_t i = rank; i < total; i += num_replicas) mine.push_back(order[i % n]);
  return mine;
  // END SOLUTION
}

}  // namespace kindling::distributed::detail
