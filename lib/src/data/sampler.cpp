// Samplers: the order of one epoch, drawn on the main thread.
#include "kindling/data/sampler.hpp"

#include <numeric>
#include <string>
#include <utility>

#include "kindling/data/dataset.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data {

// random_permutation (dataset.hpp) is chapter 4's exercise 1 (data/pieces.hpp): in the answer file.

SequentialSampler::SequentialSampler(std::int64_t n) : n_(n) {
  if (n < 0) throw ValueError("SequentialSampler: size must be non-negative, got " + std::to_string(n));
}

std::vector<std::int64_t> SequentialSampler::indices(Generator&) const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n_));
  std::iota(out.begin(), out.end(), std::int64_t{0});
  return out;
}

RandomSampler::RandomSampler(std::int64_t n, RandomSamplerOptions options) : n_(n), options_(options) {
  if (n < 0) throw ValueError("RandomSampler: size must be non-negative, got " + std::to_string(n));
  if (options_.num_samples && *options_.num_samples <= 0) {
    throw ValueError("RandomSampler: num_samples should be a positive integer, got " +
                     std::to_string(*options_.num_samples));
  }
  if (n == 0 && options_.num_samples) {
    throw ValueError("RandomSampler: cannot draw num_samples from an empty dataset");
  }
  // PyTorch's default num_samples is len(dataset), which must be positive: shuffling nothing is
  // refused there ("num_samples should be a positive integer value, but got num_samples=0"), and so
  // is DataLoader(empty, shuffle=True). A sequential loader over an empty dataset is fine.
  if (n == 0) {
    throw ValueError("RandomSampler: num_samples should be a positive integer value, but got num_samples=0 "
                     "(the dataset is empty; shuffle=true needs at least one sample)");
  }
}

std::int64_t RandomSampler::size() const { return options_.num_samples.value_or(n_); }

std::vector<std::int64_t> RandomSampler::indices(Generator& gen) const {
  const std::int64_t count = size();
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(count));
  if (options_.replacement) {
    for (std::int64_t k = 0; k < count; ++k) out.push_back(gen.randint(0, n_));
    return out;
  }
  // Without replacement: whole permutations, the last one cut to what is still needed.
  while (static_cast<std::int64_t>(out.size()) < count) {
    std::vector<std::int64_t> perm = random_permutation(n_, gen);
    const std::size_t take = std::min<std::size_t>(perm.size(), static_cast<std::size_t>(count) - out.size());
    out.insert(out.end(), perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(take));
  }
  return out;
}

SubsetRandomSampler::SubsetRandomSampler(std::vector<std::int64_t> indices) : indices_(std::move(indices)) {}

std::vector<std::int64_t> SubsetRandomSampler::indices(Generator& gen) const {
  std::vector<std::int64_t> perm = random_permutation(size(), gen);
  for (auto& p : perm) p = indices_[static_cast<std::size_t>(p)];
  return perm;
}

std::vector<std::vector<std::int64_t>> make_batches(const std::vector<std::int64_t>& indices,
                                                    std::int64_t batch_size, bool drop_last) {
  if (batch_size <= 0) {
    throw ValueError("DataLoader: batch_size should be a positive integer, got " + std::to_string(batch_size));
  }
  std::vector<std::vector<std::int64_t>> out;
  const auto n = static_cast<std::int64_t>(indices.size());
  for (std::int64_t start = 0; start < n; start += batch_size) {
    const std::int64_t stop = std::min(n, start + batch_size);
    if (drop_last && stop - start < batch_size) break;
    out.emplace_back(indices.begin() + start, indices.begin() + stop);
  }
  return out;
}

BatchSampler::BatchSampler(std::shared_ptr<Sampler> sampler, std::int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  if (!sampler_) throw ValueError("BatchSampler: the sampler is null");
  if (batch_size <= 0) {
    throw ValueError("BatchSampler: batch_size should be a positive integer, got " + std::to_string(batch_size));
  }
}

std::vector<std::vector<std::int64_t>> BatchSampler::batches(Generator& gen) const {
  return make_batches(sampler_->indices(gen), batch_size_, drop_last_);
}

std::int64_t BatchSampler::size() const {
  const std::int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

}  // namespace kindling::data
