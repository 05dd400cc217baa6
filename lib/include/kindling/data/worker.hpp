#pragma once
/// @file
/// Randomness inside data loading. Random transforms (RandomCrop, RandomHorizontalFlip, ...) draw
/// from current_generator(). Outside a DataLoader that is kd::default_generator(); inside one, the
/// loader installs a generator seeded from (epoch seed, position of the sample in the epoch) for
/// each sample, so the same seed gives the same augmented batches whatever the number of workers
/// — and no two worker threads ever share a generator.
#include <cstdint>
#include <optional>

#include "kindling/tensor/random.hpp"

namespace kindling::data {

/// The generator random transforms must use: the per-sample one set by a SampleGeneratorGuard on
/// this thread, else kd::default_generator() (safe to share, but threads that draw from it take
/// turns in an order nobody controls: from your own threads, use a guard to be reproducible).
Generator& current_generator();

/// Seed of the sample at `position` of an epoch whose base seed is `base_seed` (a SplitMix64 hash:
/// nearby positions get unrelated seeds).
std::uint64_t sample_seed(std::uint64_t base_seed, std::uint64_t position);

/// Makes current_generator() on this thread a generator seeded with `seed` until the guard dies.
/// The generator is built only when first asked for (most samples of a dataset without random
/// transforms never pay for it).
class SampleGeneratorGuard {
 public:
  explicit SampleGeneratorGuard(std::uint64_t seed);
  ~SampleGeneratorGuard();
  SampleGeneratorGuard(const SampleGeneratorGuard&) = delete;
  SampleGeneratorGuard& operator=(const SampleGeneratorGuard&) = delete;

 private:
  std::uint64_t seed_;
  std::optional<Generator> generator_;
  SampleGeneratorGuard* previous_;
  friend Generator& current_generator();
};

/// Inside a DataLoader worker thread: which worker this is (torch.utils.data.get_worker_info()).
struct WorkerInfo {
  std::int64_t id = 0;           ///< 0..num_workers-1
  std::int64_t num_workers = 0;  ///< the loader's num_workers
};
/// The calling thread's WorkerInfo, or nullopt on a thread that is not a DataLoader worker.
std::optional<WorkerInfo> get_worker_info();

namespace detail {
/// Set by the DataLoader at the start of each worker thread.
void set_worker_info(std::optional<WorkerInfo> info);
}  // namespace detail

}  // namespace kindling::data
