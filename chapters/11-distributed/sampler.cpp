// DistributedSampler: which samples each rank reads, epoch after epoch. No MPI job is
// needed to look: the sampler takes the world's size and its rank as options (by
// default it asks the process group).
#include "common.hpp"

int main() {
  // [snippet: shards]
  const std::int64_t n = 10;  // a dataset of 10 samples, read by 4 ranks
  for (std::int64_t r = 0; r < 4; ++r) {
    dist::DistributedSampler s(n, {.num_replicas = 4, .rank = r, .shuffle = false});
    std::printf("rank %lld: %s\n", static_cast<long long>(r),
                list_str(s.indices()).c_str());
  }
  // [end]
  std::printf("\n");

  // [snippet: epochs]
  for (std::int64_t epoch = 0; epoch < 2; ++epoch) {
    std::vector<std::int64_t> seen;
    for (std::int64_t r = 0; r < 4; ++r) {
      dist::DistributedSampler s(n, {.num_replicas = 4, .rank = r, .seed = 0});
      s.set_epoch(epoch);  // the order of this epoch: the same on every rank
      const std::vector<std::int64_t> mine = s.indices();
      seen.insert(seen.end(), mine.begin(), mine.end());
      std::printf("epoch %lld, rank %lld: %s\n", static_cast<long long>(epoch),
                  static_cast<long long>(r), list_str(mine).c_str());
    }
    std::sort(seen.begin(), seen.end());
    std::printf("epoch %lld, all ranks: %s\n", static_cast<long long>(epoch),
                list_str(seen).c_str());
  }
  // [end]
  std::printf("\n");

  // [snippet: drop-last]
  for (std::int64_t r = 0; r < 4; ++r) {
    dist::DistributedSampler s(
        n, {.num_replicas = 4, .rank = r, .shuffle = false, .drop_last = true});
    std::printf("drop_last, rank %lld: %s\n", static_cast<long long>(r),
                list_str(s.indices()).c_str());
  }
  // [end]
  return 0;
}
