#pragma once
/// @file
/// Samplers decide the *order* in which a DataLoader visits a dataset's indices, one epoch at a
/// time. The DataLoader draws every epoch's order on the calling thread from one generator, so
/// the order never depends on how many worker threads there are.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kindling/tensor/random.hpp"

namespace kindling::data {

/// Base class: the indices of one epoch.
class Sampler {
 public:
  virtual ~Sampler() = default;
  /// The indices to visit this epoch; random samplers draw from `gen`.
  virtual std::vector<std::int64_t> indices(Generator& gen) const = 0;
  /// How many indices one epoch yields.
  virtual std::int64_t size() const = 0;
};

/// 0, 1, ..., n-1 (torch.utils.data.SequentialSampler). What shuffle=false uses.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(std::int64_t n);
  std::vector<std::int64_t> indices(Generator& gen) const override;
  std::int64_t size() const override { return n_; }

 private:
  std::int64_t n_;
};

/// Options of RandomSampler.
struct RandomSamplerOptions {
  /// Draw with replacement (an index may repeat; needed when num_samples > n).
  bool replacement = false;
  /// Samples per epoch; default n. Without replacement, num_samples > n is served by several
  /// permutations in a row, like PyTorch.
  std::optional<std::int64_t> num_samples;
};

/// A new random order every epoch (torch.utils.data.RandomSampler). What shuffle=true uses.
class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(std::int64_t n, RandomSamplerOptions options = {});
  std::vector<std::int64_t> indices(Generator& gen) const override;
  std::int64_t size() const override;

 private:
  std::int64_t n_;
  RandomSamplerOptions options_;
};

/// Only the given indices, in a new random order every epoch (torch's SubsetRandomSampler).
class SubsetRandomSampler : public Sampler {
 public:
  explicit SubsetRandomSampler(std::vector<std::int64_t> indices);
  std::vector<std::int64_t> indices(Generator& gen) const override;
  std::int64_t size() const override { return static_cast<std::int64_t>(indices_.size()); }

 private:
  std::vector<std::int64_t> indices_;
};

/// Groups a sampler's indices into batches (torch.utils.data.BatchSampler).
class BatchSampler {
 public:
  BatchSampler(std::shared_ptr<Sampler> sampler, std::int64_t batch_size, bool drop_last);
  /// One epoch's batches: full batches, then a smaller last one unless drop_last.
  std::vector<std::vector<std::int64_t>> batches(Generator& gen) const;
  /// Number of batches per epoch: ceil(n / batch_size), or floor with drop_last.
  std::int64_t size() const;

 private:
  std::shared_ptr<Sampler> sampler_;
  std::int64_t batch_size_;
  bool drop_last_;
};

/// Splits `indices` into consecutive batches of `batch_size` (the last one smaller unless
/// drop_last, in which case it is dropped).
std::vector<std::vector<std::int64_t>> make_batches(const std::vector<std::int64_t>& indices,
                                                    std::int64_t batch_size, bool drop_last);

}  // namespace kindling::data
