// DistributedSampler, line for line PyTorch's (torch/utils/data/distributed.py).
#include "kindling/distributed/sampler.hpp"

#include <random>
#include <string>

#include "distributed/pieces.hpp"
#include "kindling/distributed/process_group.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::distributed {

std::vector<std::int64_t> torch_randperm(std::int64_t n, std::uint64_t seed) {
  if (n < 0) throw ValueError("torch_randperm: n must be non-negative, got " + std::to_string(n) + ".");
  std::vector<std::int64_t> r(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) r[i] = i;
  std::mt19937 engine(static_cast<std::uint32_t>(seed));  // at::mt19937 keeps the low 32 bits too
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    const auto z = static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(n - i));
    std::swap(r[i], r[i + z]);
  }
  return r;
}

namespace {
std::int64_t from_group(const std::optional<std::int64_t>& given, const char* what) {
  if (given) return *given;
  if (!is_initialized()) {
    throw DistributedError(std::string("DistributedSampler: ") + what + " was not given and the process group is "
                           "not initialised. Hint: call kd::distributed::init_process_group() first, or pass "
                           ".num_replicas and .rank.");
  }
  return std::string(what) == "num_replicas" ? get_world_size() : get_rank();
}
}  // namespace

DistributedSampler::DistributedSampler(std::int64_t dataset_size, DistributedSamplerOptions options)
    : dataset_size_(dataset_size),
      num_replicas_(from_group(options.num_replicas, "num_replicas")),
      rank_(from_group(options.rank, "rank")),
      options_(options) {
  if (dataset_size < 0) {
    throw ValueError("DistributedSampler: the dataset size is " + std::to_string(dataset_size) + ".");
  }
  if (num_replicas_ < 1) {
    throw ValueError("DistributedSampler: num_replicas must be at least 1, got " + std::to_string(num_replicas_) +
                     ".");
  }
  if (rank_ < 0 || rank_ >= num_replicas_) {
    throw ValueError("DistributedSampler: invalid rank " + std::to_string(rank_) +
                     ", rank should be in the interval [0, " + std::to_string(num_replicas_ - 1) + "].");
  }
  // drop_last with a remainder: the largest equal shards that fit; otherwise the smallest equal
  // shards that hold everything (some indices then appear twice in an epoch).
  if (options.drop_last && dataset_size % num_replicas_ != 0) {
    num_samples_ = (dataset_size - num_replicas_ + num_replicas_ - 1) / num_replicas_;  // ceil((n - R) / R)
    if (dataset_size < num_replicas_) num_samples_ = 0;  // PyTorch's math.ceil of a negative fraction
  } else {
    num_samples_ = (dataset_size + num_replicas_ - 1) / num_replicas_;
  }
}

std::vector<std::int64_t> DistributedSampler::indices(Generator& /*gen*/) const { return indices(); }

std::vector<std::int64_t> DistributedSampler::indices() const {
  std::vector<std::int64_t> order;
  if (options_.shuffle) {
    order = torch_randperm(dataset_size_, options_.seed + static_cast<std::uint64_t>(epoch_));
  } else {
    order.resize(static_cast<std::size_t>(dataset_size_));
    for (std::int64_t i = 0; i < dataset_size_; ++i) order[i] = i;
  }
  // Padding (or cutting) the order and dealing it out is exercise ch11.ex1.
  std::vector<std::int64_t> mine = detail::sampler_shard(order, num_replicas_, rank_, options_.drop_last);
  if (static_cast<std::int64_t>(mine.size()) != num_samples_) {
    throw ValueError("DistributedSampler: sampler_shard gave rank " + std::to_string(rank_) + " of " +
                     std::to_string(num_replicas_) + " " + std::to_string(mine.size()) + " indices of a dataset of " +
                     std::to_string(dataset_size_) + "; every rank must get num_samples = " +
                     std::to_string(num_samples_) + (options_.drop_last ? " (drop_last: n / R, rounded down)."
                                                                         : " (ceil(n / R), padding repeats the order)."));
  }
  for (const std::int64_t i : mine) {
    if (i < 0 || i >= dataset_size_) {
      throw ValueError("DistributedSampler: sampler_shard returned index " + std::to_string(i) +
                       ", outside a dataset of " + std::to_string(dataset_size_) + ".");
    }
  }
  return mine;
}

}  // namespace kindling::distributed
