#pragma once
/// @file
/// Caching preprocessed samples — the remedy for a slow `get()` (decoding large images, heavy
/// preprocessing). The first run pushes every sample through the dataset (and its transforms) once
/// and saves them as two .npy files; later runs load the files and serve rows from memory.
///
/// Cache only *deterministic* preprocessing: random augmentation would be frozen into the files.
/// Delete the files (or pass .rebuild = true) after changing the dataset or its transforms.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "kindling/data/dataloader.hpp"
#include "kindling/data/dataset.hpp"

namespace kindling::data {

/// Options of CachedDataset.
struct CacheOptions {
  /// Rebuild the cache even if the files exist.
  bool rebuild = false;
  /// Worker threads used while building the cache.
  std::int64_t num_workers = 0;
  /// Samples per batch while building the cache.
  std::int64_t batch_size = 256;
};

namespace detail {
/// Loads "<prefix>.data.npy" and "<prefix>.targets.npy" if both exist and hold `expected` rows.
std::optional<std::pair<Tensor, Tensor>> load_cache(const std::string& prefix, std::int64_t expected);
/// Saves both files (atomically, via kindling::save_npy).
void save_cache(const std::string& prefix, const Tensor& data, const Tensor& targets);
/// Copies `batch` into rows [start, start + B) of `all` (allocated from the first batch).
void append_rows(Tensor& all, const Tensor& batch, std::int64_t start, std::int64_t total);
}  // namespace detail

/// Serves a dataset of Examples from "<prefix>.data.npy" / "<prefix>.targets.npy", building them
/// from `dataset` when they are missing or hold a different number of samples.
class CachedDataset {
 public:
  template <Dataset D>
    requires std::same_as<sample_t<D>, Example>
  CachedDataset(const D& dataset, const std::string& prefix, CacheOptions options = {}) {
    const auto n = static_cast<std::int64_t>(dataset.size());
    if (!options.rebuild) {
      if (auto cached = detail::load_cache(prefix, n)) {
        data_ = cached->first, targets_ = cached->second, from_cache_ = true;
        return;
      }
    }
    // Materialise with a DataLoader (workers parallelise the transforms), in order, fixed seed.
    DataLoader loader(dataset, {.batch_size = options.batch_size, .num_workers = options.num_workers, .seed = 0});
    std::int64_t row = 0;
    for (auto& [x, y] : loader) {
      detail::append_rows(data_, x, row, n);
      detail::append_rows(targets_, y, row, n);
      row += x.size(0);
    }
    if (n == 0) throw ValueError("CachedDataset: the dataset is empty; nothing to cache");
    detail::save_cache(prefix, data_, targets_);
  }
  std::int64_t size() const { return data_.size(0); }
  /// Rows of the cached tensors (views).
  Example get(std::int64_t index) const;
  /// True when the samples came from existing files (false: built now).
  bool loaded_from_cache() const { return from_cache_; }
  const Tensor& data() const { return data_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor data_, targets_;
  bool from_cache_ = false;
};

}  // namespace kindling::data
