#pragma once
/// @file
/// The DataLoader: batches, shuffling and parallel loading.
///
///     kd::data::DataLoader loader(train, {.batch_size = 32, .shuffle = true, .num_workers = 2});
///     for (auto& [inputs, labels] : loader) { ... }   // inputs: [32, 1, 28, 28], labels: [32]
///
/// How it works. At the start of each epoch (each `begin()`), the calling thread draws the epoch's
/// order from the sampler and a base seed, then cuts the order into batches. With num_workers = 0
/// the batches are loaded on the calling thread as the loop asks for them. With num_workers = N,
/// N worker *threads* (PyTorch uses processes; threads share the dataset for free) take batch
/// numbers from a shared counter, call `dataset.get(i)` for each index and collate the samples;
/// at most prefetch_factor × N batches are in flight beyond the one the loop is using. The loop
/// receives batches in order, whichever worker finished first. Each sample is loaded under a
/// generator seeded from (base seed, position in the epoch), which random transforms use through
/// current_generator(): the same seed gives the same batches for 0, 1, 2 or 16 workers.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kindling/data/collate.hpp"
#include "kindling/data/dataset.hpp"
#include "kindling/data/sampler.hpp"
#include "kindling/data/worker.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/pinned.hpp"
#include "kindling/tensor/random.hpp"

namespace kindling::data {

/// DataLoader options, written with designated initialisers (in this order):
/// `{.batch_size = 32, .shuffle = true, .num_workers = 2}`.
struct DataLoaderOptions {
  /// Samples per batch (PyTorch's default is 1 too).
  std::int64_t batch_size = 1;
  /// A new random order every epoch (a RandomSampler). Shuffle training data, not validation data.
  bool shuffle = false;
  /// Worker threads; 0 loads on the calling thread. 2–4 is usually plenty; in-memory data needs few.
  /// At most detail::kMaxWorkers (256); more than the machine's cores prints a warning once.
  std::int64_t num_workers = 0;
  /// Drop the last batch when it is smaller than batch_size.
  bool drop_last = false;
  /// Hand out batches in pinned (page-locked) host memory, so that `to_device_async` can copy them
  /// while the CPU goes on: every Tensor of the batch (an Example's, a pair's or tuple's, a vector's)
  /// is pinned. Pinning needs a CUDA device set up (chapter 8); without one the batches stay in
  /// ordinary memory, as PyTorch does with a warning.
  bool pin_memory = false;
  /// Seed of the loader's own generator (epoch orders and per-sample augmentation). Without it
  /// (and without `generator`) each epoch draws from kd::default_generator(), so kd::manual_seed()
  /// before the loop makes runs reproducible.
  std::optional<std::uint64_t> seed;
  /// A generator to draw from instead (not owned; must outlive the loader).
  Generator* generator = nullptr;
  /// Batches each worker may load ahead of the loop.
  std::int64_t prefetch_factor = 2;
  /// A custom order of indices; mutually exclusive with shuffle.
  std::shared_ptr<Sampler> sampler;
};

/// Thrown by the loop when loading a sample or collating a batch failed. The message names the
/// sample's index; the original exception is nested (std::rethrow_if_nested).
class DataLoaderError : public Error {
  using Error::Error;
};

namespace detail {
/// One epoch's plan: the batches of indices and the seed of its per-sample generators.
struct EpochPlan {
  std::vector<std::vector<std::int64_t>> batches;
  std::uint64_t base_seed = 0;
  std::int64_t batch_size = 1;
};
/// Checks the options (throws ValueError naming the bad one) and makes the epoch sampler.
std::shared_ptr<Sampler> make_sampler(const DataLoaderOptions& options, std::int64_t dataset_size);
EpochPlan plan_epoch(const Sampler& sampler, const DataLoaderOptions& options, Generator& gen);
/// Called inside a catch block: throws DataLoaderError naming the sample, with the current
/// exception nested.
[[noreturn]] void throw_sample_error(std::int64_t index, std::int64_t batch);
[[noreturn]] void throw_collate_error(std::int64_t batch, const std::vector<std::int64_t>& indices);

// The DataLoader's pin_memory: every tensor of a batch moved to pinned memory (pin_memory.hpp).
template <class T>
void pin_batch(T&) {}  // not a tensor, nor a container of them: left as it is
inline void pin_batch(Tensor& t) { t = pin_memory(t); }
inline void pin_batch(Example& e) {
  pin_batch(e.data);
  pin_batch(e.target);
}
template <class A, class B>
void pin_batch(std::pair<A, B>& p);
template <class... T>
void pin_batch(std::tuple<T...>& t);
template <class T>
void pin_batch(std::vector<T>& v) {
  for (auto& x : v) pin_batch(x);
}
template <class A, class B>
void pin_batch(std::pair<A, B>& p) {
  pin_batch(p.first);
  pin_batch(p.second);
}
template <class... T>
void pin_batch(std::tuple<T...>& t) {
  std::apply([](auto&... x) { (pin_batch(x), ...); }, t);
}
/// Called inside a catch block when starting the `num_workers` worker threads failed (the system
/// refused a thread): throws DataLoaderError with the reason and a hint.
[[noreturn]] void throw_worker_start_error(std::int64_t num_workers);
/// The most worker threads a DataLoader starts (more is refused: it is a mistake, not a speed-up).
inline constexpr std::int64_t kMaxWorkers = 256;

// [snippet: prefetcher]
/// The prefetching heart of a DataLoader epoch (chapter 4's exercise 4, defined
/// in the answer file): items 0..count-1 are loaded by `load(k, worker)` on
/// `num_workers` threads (>= 1), at most `window` items beyond the one the
/// consumer is using, and next() hands them out *in order* — item k is returned
/// k-th however the threads race. An exception thrown by load(k) is rethrown by
/// the next() that reaches item k. The destructor stops the threads and joins
/// them; a thread finishes at most the item it is loading. The DataLoader wraps
/// each batch as an Item (a type-erased shared pointer).
class OrderedPrefetcher {
 public:
  using Item = std::shared_ptr<void>;
  using Load = std::function<Item(std::int64_t index, std::int64_t worker)>;
  OrderedPrefetcher(std::int64_t count, std::int64_t num_workers, std::int64_t window,
                    Load load);
  ~OrderedPrefetcher();
  OrderedPrefetcher(const OrderedPrefetcher&) = delete;
  OrderedPrefetcher& operator=(const OrderedPrefetcher&) = delete;
  /// The next item in order, or nullptr after the last one.
  Item next();

 private:
  void worker_loop(std::int64_t worker);
  void shutdown();
  struct Result {
    Item item;
    std::exception_ptr error;
  };
  std::int64_t count_, window_;
  Load load_;
  std::mutex mutex_;
  std::condition_variable work_cv_, ready_cv_;
  // The next item to hand to a thread / to the consumer.
  std::int64_t next_dispatch_ = 0, next_yield_ = 0;
  bool stop_ = false;
  std::map<std::int64_t, Result> ready_;  // finished items waiting for their turn
  std::vector<std::thread> threads_;
};
// [end]
}  // namespace detail

/// Iterates over a dataset in batches. D is any type with size() and a const get(index); Collate
/// turns a std::vector of samples into a batch (default: stack, see DefaultCollate).
///
/// Passing an lvalue dataset keeps a *reference* to it (like PyTorch): it must outlive the loader.
/// Passing a temporary moves it into the loader.
template <Dataset D, class Collate = DefaultCollate>
class DataLoader {
 public:
  using Sample = sample_t<D>;
  using Batch = std::remove_cvref_t<std::invoke_result_t<const Collate&, std::vector<Sample>&&>>;

  template <class DD>
    requires std::same_as<std::remove_cvref_t<DD>, D>
  DataLoader(DD&& dataset, DataLoaderOptions options = {}, Collate collate = {})
      : options_(std::move(options)), collate_(std::move(collate)) {
    if constexpr (std::is_lvalue_reference_v<DD>) {
      dataset_ = std::shared_ptr<const D>(&dataset, [](const D*) {});  // borrowed, not owned
    } else {
      dataset_ = std::make_shared<const D>(std::move(dataset));
    }
    sampler_ = detail::make_sampler(options_, static_cast<std::int64_t>(dataset_->size()));
    if (options_.seed && !options_.generator) own_generator_.emplace(*options_.seed);
  }

  /// Number of batches per epoch (len(loader)): ceil(n / batch_size), or floor with drop_last.
  std::int64_t size() const {
    const std::int64_t n = sampler_->size(), b = options_.batch_size;
    return options_.drop_last ? n / b : (n + b - 1) / b;
  }
  const D& dataset() const { return *dataset_; }
  const DataLoaderOptions& options() const { return options_; }

 private:
  // One pass over the data. With workers, the prefetcher owns the threads; destroying the epoch (loop
  // finished, `break`, or an exception) stops and joins them.
  class Epoch {
   public:
    Epoch(std::shared_ptr<const D> dataset, const Collate& collate, detail::EpochPlan plan,
          std::int64_t num_workers, std::int64_t prefetch_factor, bool pin_memory = false)
        : dataset_(std::move(dataset)), collate_(collate), plan_(std::move(plan)),
          num_batches_(static_cast<std::int64_t>(plan_.batches.size())),
          pin_memory_(pin_memory && kindling::detail::pinned_memory_available()) {
      if (num_workers == 0) return;
      auto load_batch = [this, num_workers](std::int64_t k, std::int64_t worker) {
        detail::set_worker_info(WorkerInfo{worker, num_workers});
        return detail::OrderedPrefetcher::Item(std::make_shared<Batch>(load(k)));
      };
      try {
        prefetcher_.emplace(num_batches_, num_workers, num_workers * prefetch_factor, load_batch);
      } catch (const std::system_error&) {  // the system refused a thread
        detail::throw_worker_start_error(num_workers);
      }
    }
    Epoch(const Epoch&) = delete;
    Epoch& operator=(const Epoch&) = delete;

    // [snippet: next]
    /// The next batch in order, or nullopt at the end of the epoch. Rethrows a worker's
    /// error.
    std::optional<Batch> next() {
      if (!prefetcher_) {  // num_workers = 0: load right here
        if (next_yield_ >= num_batches_) return std::nullopt;
        return load(next_yield_++);
      }
      detail::OrderedPrefetcher::Item item = prefetcher_->next();
      if (!item) return std::nullopt;
      return std::move(*static_cast<Batch*>(item.get()));
    }
    // [end]

   private:
    // Batch k: get() each sample under its own generator, then collate.
    Batch load(std::int64_t k) const {
      const std::vector<std::int64_t>& indices = plan_.batches[static_cast<std::size_t>(k)];
      const std::int64_t first_position = k * plan_.batch_size;  // position in the epoch
      std::vector<Sample> samples;
      samples.reserve(indices.size());
      for (std::size_t j = 0; j < indices.size(); ++j) {
        SampleGeneratorGuard seeded(sample_seed(plan_.base_seed, static_cast<std::uint64_t>(first_position) + j));
        try {
          check_index(indices[j], static_cast<std::int64_t>(dataset_->size()), "DataLoader");
          samples.push_back(dataset_->get(indices[j]));
        } catch (...) {
          detail::throw_sample_error(indices[j], k);
        }
      }
      Batch batch = [&]() -> Batch {
        try {
          return collate_(std::move(samples));
        } catch (...) {
          detail::throw_collate_error(k, indices);
        }
      }();
      if (pin_memory_) detail::pin_batch(batch);  // in the worker, as PyTorch's pin thread does
      return batch;
    }

    std::shared_ptr<const D> dataset_;
    Collate collate_;
    detail::EpochPlan plan_;
    std::int64_t num_batches_;
    std::int64_t next_yield_ = 0;
    bool pin_memory_ = false;
    std::optional<detail::OrderedPrefetcher> prefetcher_;  // last: destroyed (threads joined) first
  };

 public:
  /// Input iterator over one epoch's batches (move-only: it owns the epoch's worker threads).
  class Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    Iterator(std::unique_ptr<Epoch> epoch) : epoch_(std::move(epoch)) { current_ = epoch_->next(); }
    Batch& operator*() { return *current_; }
    Batch* operator->() { return &*current_; }
    Iterator& operator++() {
      current_.reset();  // release the old batch before loading the next
      current_ = epoch_->next();
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const { return !current_.has_value(); }

   private:
    std::unique_ptr<Epoch> epoch_;
    std::optional<Batch> current_;
  };

  /// Starts a new epoch: draws its order (a new permutation when shuffling) and starts workers.
  Iterator begin() {
    Generator& gen = options_.generator ? *options_.generator
                     : own_generator_   ? *own_generator_
                                        : default_generator();
    auto epoch = std::make_unique<Epoch>(dataset_, collate_, detail::plan_epoch(*sampler_, options_, gen),
                                         options_.num_workers, options_.prefetch_factor,
                                         options_.pin_memory);
    return Iterator(std::move(epoch));
  }
  std::default_sentinel_t end() const { return {}; }

 private:
  std::shared_ptr<const D> dataset_;
  DataLoaderOptions options_;
  Collate collate_;
  std::shared_ptr<Sampler> sampler_;
  std::optional<Generator> own_generator_;
};

// Class template argument deduction: `DataLoader loader(train, {...})` → DataLoader<FashionMNIST>.
template <class DD>
DataLoader(DD&&) -> DataLoader<std::remove_cvref_t<DD>>;
template <class DD>
DataLoader(DD&&, DataLoaderOptions) -> DataLoader<std::remove_cvref_t<DD>>;
template <class DD, class C>
DataLoader(DD&&, DataLoaderOptions, C) -> DataLoader<std::remove_cvref_t<DD>, C>;

}  // namespace kindling::data
