// ch11.ex1 — DistributedSampler::indices (which calls the piece detail::sampler_shard): every rank's
// indices for the twin's dataset size, number of ranks, seed and epoch, against
// torch.utils.data.distributed.DistributedSampler with the same arguments.
#include "ch11_grading.hpp"

using namespace ch11_grading;

namespace {

/// Every rank's indices of the twin's configuration, reported as "rank r".
void report_every_rank(bool shuffle, bool drop_last, const std::string& prefix = "") {
  const std::int64_t n = int_of("n"), ranks = int_of("ranks"), epoch = int_of("epoch");
  const auto seed = static_cast<std::uint64_t>(int_of("seed"));
  for (std::int64_t r = 0; r < ranks; ++r) {
    dist::DistributedSampler sampler(n, {.num_replicas = ranks, .rank = r, .shuffle = shuffle, .seed = seed,
                                         .drop_last = drop_last});
    sampler.set_epoch(epoch);
    grading::expect(prefix + "rank " + std::to_string(r), sampler.indices());
    grading::expect(prefix + "len, rank " + std::to_string(r), sampler.size());
  }
}

}  // namespace

TEST_CASE("DistributedSampler: shuffled shards of every rank, padded", "[ch11][ex1][pts=8]") {
  report_every_rank(/*shuffle=*/true, /*drop_last=*/false);
}

TEST_CASE("DistributedSampler: drop_last cuts the tail instead", "[ch11][ex1][pts=6]") {
  report_every_rank(/*shuffle=*/true, /*drop_last=*/true);
  report_every_rank(/*shuffle=*/false, /*drop_last=*/true, "in order, ");
}

TEST_CASE("DistributedSampler: a dataset smaller than the number of ranks", "[ch11][ex1][pts=6]") {
  report_every_rank(/*shuffle=*/true, /*drop_last=*/false);
  report_every_rank(/*shuffle=*/false, /*drop_last=*/true, "drop_last, ");
}
