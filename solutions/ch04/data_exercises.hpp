#pragma once
/// @file
/// Chapter 4's exercises: re-implement five pieces of the data layer yourself — a CSV dataset, a
/// shuffling sampler, collation, two transforms and a prefetching multi-threaded loader. Each one
/// has a library counterpart (named in its comment); the graded tests compare the two, and check
/// the invariants (every index exactly once, batches in order, ...) on many inputs.
///
/// Write your answers in the matching .cpp files of this folder, then run `make grade CH=04`.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <kindling/data.hpp>

namespace kindling::exercises::ch04 {

using data::Example;

// ---- ex1: a Dataset over a CSV file --------------------------------------------------------------

/// A small CSV file as a dataset: a header row, then rows of numbers; every column but the LAST is a
/// feature, the last one is the integer class label. Blank lines are skipped; spaces around fields
/// are ignored. Library counterpart: kindling::data::CsvDataset (with its default options).
///
/// Errors (all kindling::IOError, and the message must say where):
///   - the file cannot be opened: name the path;
///   - the file is empty, or has a header but no data rows;
///   - a row has a different number of fields than the header: "line N" (1-based, counting the header);
///   - a field is not a number (or is empty): "line N" and the column's name from the header;
///   - a label is not a whole number: "line N".
class CsvTable {
 public:
  explicit CsvTable(const std::string& path);
  /// Number of data rows (len(dataset)).
  std::int64_t size() const { return labels_.defined() ? labels_.size(0) : 0; }
  /// {features row `index` (float32 [F]), label (int64, 0-d)}; IndexError when out of range.
  Example get(std::int64_t index) const;
  /// All features, float32 [N, F].
  const Tensor& features() const { return features_; }
  /// All labels, int64 [N].
  const Tensor& labels() const { return labels_; }

 private:
  Tensor features_, labels_;
};

// ---- ex2: a seeded shuffling sampler -------------------------------------------------------------

/// A random permutation of 0..n-1 by Fisher–Yates, drawing from `gen` exactly like the library:
/// start from 0, 1, ..., n-1; for i = n-1 down to 1, swap element i with element j = gen.randint(0, i + 1).
/// The same seed gives the same order. Throws ValueError for n < 0.
/// Library counterpart: kindling::data::random_permutation.
std::vector<std::int64_t> shuffled_indices(std::int64_t n, Generator& gen);

/// A Sampler (plug it into a DataLoader with `.sampler = std::make_shared<ShuffleSampler>(n)`) that
/// visits every index of a dataset of size n exactly once per epoch, in a new random order each epoch
/// (drawn from the generator the DataLoader passes in). Library counterpart: data::RandomSampler.
class ShuffleSampler : public data::Sampler {
 public:
  /// Throws ValueError for n < 0.
  explicit ShuffleSampler(std::int64_t n);
  std::vector<std::int64_t> indices(Generator& gen) const override;
  std::int64_t size() const override { return n_; }

 private:
  std::int64_t n_ = 0;
};

// ---- ex3: collate ---------------------------------------------------------------------------------

/// Stacks samples into one batch: B images of shape S (e.g. [C, H, W]) become one contiguous tensor
/// [B, ...S] of the same dtype (sample b in row b), and B 0-d labels become a 1-D [B] tensor of their
/// dtype (int64 for class labels). Samples may be non-contiguous views. Do it yourself: one
/// allocation for the batch, then copy each sample into its slot (do not call kd::stack or the
/// library's collate). Throws ValueError for an empty list, and ShapeError naming the index of the
/// first sample whose data or target shape or dtype differs from sample 0's.
/// Library counterpart: kindling::data::DefaultCollate.
Example collate(std::vector<Example> samples);

// ---- ex4: transforms -----------------------------------------------------------------------------

/// Mirrors an image [..., H, W] (uint8 or float; [C, H, W] or a batch [B, C, H, W]) left <-> right
/// with probability p. Draw exactly ONE number per call, `data::current_generator().uniform()`, and
/// flip when it is < p — so inside a DataLoader the decision is reproducible from the loader's seed.
/// Returns a new tensor when flipping (never modify the input), the input itself otherwise. Do not
/// call functional::hflip. Throws ValueError unless 0 <= p <= 1; ShapeError for fewer than 2 dims.
/// Library counterpart: kindling::data::transforms::RandomHorizontalFlip.
class RandomHorizontalFlip {
 public:
  explicit RandomHorizontalFlip(double p = 0.5);
  Tensor operator()(const Tensor& image) const;

 private:
  double p_ = 0.5;
};

/// (x - mean[c]) / std[c] for every channel c of a float image [..., C, H, W] (a result of ToTensor),
/// returned as a new tensor of the same shape and dtype (the input is unchanged). mean and std hold C
/// values, or one value for all channels. Throws ShapeError for fewer than 3 dims, DTypeError for a
/// non-float image, ValueError when mean/std hold another number of values or a std is 0.
/// Library counterpart: kindling::data::transforms::functional::normalize.
Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& std);

// ---- ex5: a prefetching multi-threaded loader ---------------------------------------------------

/// Options of PrefetchLoader.
struct PrefetchOptions {
  /// Worker threads; 0 = load each batch on the calling thread inside next().
  std::int64_t num_workers = 2;
  /// At most this many batches may be loading or loaded-but-not-yet-returned at any time (>= 1).
  std::int64_t capacity = 4;
};

/// The heart of a DataLoader: `num_workers` threads call `load(k)` for batch numbers
/// k = 0, 1, ..., num_batches-1 ahead of the loop, and next() hands the batches out IN ORDER
/// (0, 1, 2, ... whichever worker finishes first), then std::nullopt.
///
/// Rules the tests check:
///   - each k is loaded exactly once; batches come out in order;
///   - bounded: a worker may start batch k only while k < (batches returned so far) + capacity;
///   - when load(k) throws, next() rethrows that exception (the same type) when the loop reaches batch
///     k — every batch before k is still returned first;
///   - the destructor (e.g. after `break`) stops the workers and joins them promptly: no new batch is
///     started, and only batches already being loaded finish;
///   - num_workers = 0 loads synchronously on the calling thread.
/// Throws ValueError for num_batches < 0, num_workers < 0 or capacity < 1.
/// Library counterpart: the worker machinery of kindling::data::DataLoader (data/dataloader.hpp).
class PrefetchLoader {
 public:
  using LoadFn = std::function<Example(std::int64_t batch)>;
  PrefetchLoader(std::int64_t num_batches, LoadFn load, PrefetchOptions options = {});
  ~PrefetchLoader();
  PrefetchLoader(const PrefetchLoader&) = delete;
  PrefetchLoader& operator=(const PrefetchLoader&) = delete;

  /// The next batch in order, or std::nullopt after the last one; rethrows a failed batch's exception.
  std::optional<Example> next();

 private:
  // BEGIN SOLUTION ex5
  struct Slot {
    std::optional<Example> batch;
    std::exception_ptr error;
  };
  void worker_loop();

  std::int64_t num_batches_;
  LoadFn load_;
  std::int64_t capacity_;
  std::mutex mutex_;
  std::condition_variable work_cv_;   // workers wait here for a free slot (or stop)
  std::condition_variable ready_cv_;  // next() waits here for its batch
  std::int64_t next_dispatch_ = 0;    // the next batch number a worker will take
  std::int64_t next_yield_ = 0;       // the next batch number next() returns
  bool stop_ = false;
  std::map<std::int64_t, Slot> ready_;  // finished batches waiting for their turn
  std::vector<std::thread> threads_;
  // STUB
  // // ex5: the members your loader needs (threads, a mutex, condition variables, finished batches...)
  // END SOLUTION
};

}  // namespace kindling::exercises::ch04
