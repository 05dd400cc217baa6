#pragma once
/// @file
/// DistributedSampler (torch.utils.data.distributed.DistributedSampler): each rank of a job reads
/// its own shard of the dataset, the shards together cover it once per epoch, and every rank
/// draws the same shuffled order because it is drawn from `seed + epoch` alone.
#include <cstdint>
#include <optional>
#include <vector>

#include "kindling/data/sampler.hpp"

namespace kindling::distributed {

/// Options of DistributedSampler, with PyTorch's names and defaults.
struct DistributedSamplerOptions {
  /// How many ranks share the dataset; default: the process group's world size.
  std::optional<std::int64_t> num_replicas;
  /// Which shard this sampler yields; default: the process group's rank.
  std::optional<std::int64_t> rank;
  /// A new order every epoch (the same on every rank): call set_epoch before each epoch.
  bool shuffle = true;
  /// Added to the epoch to start the permutation; the same on every rank.
  std::uint64_t seed = 0;
  /// Drop the tail that does not divide evenly instead of repeating indices to fill the shards.
  bool drop_last = false;
};

/// Rank r of R yields indices r, r + R, r + 2R, ... of the epoch's order (shuffled or 0..n-1),
/// padded by repeating its first indices so that every rank gets num_samples indices (or cut
/// short with drop_last): the ranks take equally many steps, and no collective waits forever.
class DistributedSampler : public data::Sampler {
 public:
  DistributedSampler(std::int64_t dataset_size, DistributedSamplerOptions options = {});
  /// The epoch whose order the next indices() draws (PyTorch's set_epoch); without it every
  /// epoch has the same order.
  void set_epoch(std::int64_t epoch) { epoch_ = epoch; }
  std::int64_t epoch() const { return epoch_; }
  /// This rank's indices for the current epoch.
  std::vector<std::int64_t> indices() const;
  /// The same; `gen` is not used (the order comes from seed + epoch, identical on every rank).
  std::vector<std::int64_t> indices(Generator& gen) const override;
  /// Indices per rank and epoch (PyTorch's num_samples, len(sampler)).
  std::int64_t size() const override { return num_samples_; }
  /// num_samples * num_replicas.
  std::int64_t total_size() const { return num_samples_ * num_replicas_; }
  std::int64_t num_replicas() const { return num_replicas_; }
  std::int64_t rank() const { return rank_; }

 private:
  std::int64_t dataset_size_, num_replicas_, rank_, num_samples_;
  DistributedSamplerOptions options_;
  std::int64_t epoch_ = 0;
};

/// The permutation `torch.randperm(n, generator=g)` returns on the CPU after
/// `g.manual_seed(seed)`: PyTorch's generator is the 32-bit Mersenne Twister (std::mt19937,
/// started from the low 32 bits of `seed`), and its randperm swaps position i with
/// i + (next number mod (n - i)) for i = 0 .. n-2. Kindling's own Generator is another stream
/// (64-bit Mersenne Twister), so this is what makes a shuffled DistributedSampler agree with
/// PyTorch's index for index.
std::vector<std::int64_t> torch_randperm(std::int64_t n, std::uint64_t seed);

}  // namespace kindling::distributed
