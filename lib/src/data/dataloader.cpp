// The non-template half of the DataLoader: option checks, epoch planning, error messages.
#include "kindling/data/dataloader.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

namespace kindling::data::detail {

std::shared_ptr<Sampler> make_sampler(const DataLoaderOptions& o, std::int64_t dataset_size) {
  auto bad = [](const std::string& what) { throw ValueError("DataLoader: " + what); };
  if (o.batch_size <= 0) bad("batch_size should be a positive integer, got " + std::to_string(o.batch_size));
  if (o.num_workers < 0) bad("num_workers should be 0 or more, got " + std::to_string(o.num_workers));
  if (o.num_workers > kMaxWorkers) {
    // 1 << 40 workers once escaped as std::system_error; 1000 silently started 1000 threads.
    bad("num_workers = " + std::to_string(o.num_workers) + " is more than the " + std::to_string(kMaxWorkers) +
        " worker threads a DataLoader starts. Hint: use about as many workers as CPU cores (this machine has " +
        std::to_string(std::thread::hardware_concurrency()) + "); in-memory data needs 0-2.");
  }
  if (o.prefetch_factor <= 0 || o.prefetch_factor > 1024) {
    bad("prefetch_factor should be an integer from 1 to 1024, got " + std::to_string(o.prefetch_factor));
  }
  const auto cores = static_cast<std::int64_t>(std::thread::hardware_concurrency());
  static std::atomic<bool> warned{false};
  if (cores > 0 && o.num_workers > std::max<std::int64_t>(8, 2 * cores) && !warned.exchange(true)) {
    std::fprintf(stderr,
                 "DataLoader: warning: num_workers = %lld on a machine with %lld CPU cores; more workers than "
                 "cores only adds contention. PyTorch suggests at most the number of cores.\n",
                 static_cast<long long>(o.num_workers), static_cast<long long>(cores));
  }
  if (o.sampler) {
    if (o.shuffle) bad("the sampler option is mutually exclusive with shuffle=true (the sampler decides the order)");
    return o.sampler;
  }
  if (o.shuffle) return std::make_shared<RandomSampler>(dataset_size);
  return std::make_shared<SequentialSampler>(dataset_size);
}

EpochPlan plan_epoch(const Sampler& sampler, const DataLoaderOptions& options, Generator& gen) {
  EpochPlan plan;
  plan.batches = make_batches(sampler.indices(gen), options.batch_size, options.drop_last);
  plan.base_seed = gen.next_u64();  // drawn after the order: one stream, fixed order of draws
  plan.batch_size = options.batch_size;
  return plan;
}

namespace {
std::string where() {
  if (auto info = get_worker_info()) {
    return "worker " + std::to_string(info->id) + " of " + std::to_string(info->num_workers);
  }
  return "the main thread (num_workers=0)";
}
std::string current_message() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}
}  // namespace

void throw_sample_error(std::int64_t index, std::int64_t batch) {
  std::throw_with_nested(DataLoaderError("DataLoader: loading sample index " + std::to_string(index) +
                                         " (batch " + std::to_string(batch) + ", in " + where() +
                                         ") failed: " + current_message()));
}

void throw_worker_start_error(std::int64_t num_workers) {
  std::throw_with_nested(DataLoaderError("DataLoader: could not start its " + std::to_string(num_workers) +
                                         " worker threads: " + current_message() +
                                         ". Hint: use fewer workers (num_workers), or raise the limit on threads."));
}

void throw_collate_error(std::int64_t batch, const std::vector<std::int64_t>& indices) {
  std::string list;
  for (std::size_t i = 0; i < indices.size() && i < 8; ++i) list += (i ? ", " : "") + std::to_string(indices[i]);
  if (indices.size() > 8) list += ", ...";
  std::throw_with_nested(DataLoaderError("DataLoader: collating batch " + std::to_string(batch) +
                                         " (sample indices " + list + ", in " + where() +
                                         ") failed: " + current_message()));
}

}  // namespace kindling::data::detail
