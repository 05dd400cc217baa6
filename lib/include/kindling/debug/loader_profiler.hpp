#pragma once
/// @file
/// Is the model waiting for data? profile_loader runs your step on each batch of a loader and
/// splits the wall time into *waiting* (the loader producing the next batch: get(), transforms,
/// collate, or waiting for the workers) and *compute* (your step). A model that waits more than
/// it computes is starved: add workers (num_workers), or do the heavy get() work once and cache
/// it (data::CachedDataset, or .npy files).
///
/// Per worker: wrap the dataset in TimedDataset (sharing a GetTimer), build the loader on the wrapper
/// and pass the timer to profile_loader; the profile then says, for each worker thread, how long it
/// spent inside get() and how long it was idle (waiting for a free slot in the prefetch window, or
/// done with its share of the epoch). Workers that are idle most of the time while the model is
/// starved mean the cost is elsewhere (collate, the hand-over); busy workers mean more workers, or
/// a cache, would help.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kindling/data/worker.hpp"

namespace kindling::debug {

/// One loading thread's share of a profiled run.
struct WorkerProfile {
  std::int64_t worker = -1;  ///< 0..num_workers-1; -1: the calling thread (num_workers = 0)
  std::int64_t samples = 0;  ///< get() calls
  double get_seconds = 0;    ///< inside get(): the loading work itself
  double idle_seconds = 0;   ///< the rest of the profiled wall time
  double busy_share() const {
    const double total = get_seconds + idle_seconds;
    return total > 0 ? get_seconds / total : 0;
  }
};

/// Accumulates the time of every get() by the worker that made it (thread-safe). Shared by the
/// TimedDataset copies a DataLoader makes and by profile_loader.
class GetTimer {
 public:
  void add(std::int64_t worker, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& [n, t] = by_worker_[worker];
    ++n;
    t += seconds;
  }
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    by_worker_.clear();
  }
  /// The workers seen so far, in id order, with idle = wall_seconds - their time in get().
  std::vector<WorkerProfile> per_worker(double wall_seconds) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<WorkerProfile> out;
    for (const auto& [id, nt] : by_worker_) {
      const double idle = wall_seconds > nt.second ? wall_seconds - nt.second : 0.0;
      out.push_back({id, nt.first, nt.second, idle});
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::int64_t, std::pair<std::int64_t, double>> by_worker_;  // id -> (get() calls, seconds)
};

/// A dataset whose get() is timed into a GetTimer, attributed to the DataLoader worker calling it
/// (data::get_worker_info(); -1 on the loop's own thread). Otherwise it is `dataset`.
template <class D>
class TimedDataset {
 public:
  TimedDataset(D dataset, std::shared_ptr<GetTimer> timer)
      : dataset_(std::move(dataset)), timer_(std::move(timer)) {}
  std::int64_t size() const { return dataset_.size(); }
  auto get(std::int64_t index) const {
    const auto t0 = std::chrono::steady_clock::now();
    auto sample = dataset_.get(index);
    const auto info = data::get_worker_info();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    timer_->add(info ? info->id : -1, dt);
    return sample;
  }

 private:
  D dataset_;
  std::shared_ptr<GetTimer> timer_;
};

struct LoaderProfile {
  std::int64_t batches = 0;
  double wait_seconds = 0;     ///< inside the loader: begin(), ++it and *it
  double compute_seconds = 0;  ///< inside your step
  std::vector<WorkerProfile> workers;  ///< per loading thread, when profiled with a GetTimer
  double wait_share() const {
    const double total = wait_seconds + compute_seconds;
    return total > 0 ? wait_seconds / total : 0;
  }
  bool starved(double share = 0.5) const { return wait_share() > share; }
  /// "12 batches: waiting 0.84 s (71%), compute 0.34 s -- the model is starved: ..."
  std::string to_string() const;
};

/// Times `step(batch)` against the loader's own time over at most `max_batches` batches (-1: one
/// epoch).
template <class Loader, class Step>
LoaderProfile profile_loader(Loader& loader, Step&& step, std::int64_t max_batches = -1,
                             GetTimer* timer = nullptr) {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::duration d) { return std::chrono::duration<double>(d).count(); };
  LoaderProfile p;
  if (timer) timer->reset();
  const auto start = clock::now();
  auto t0 = start;
  auto it = loader.begin();
  auto end = loader.end();
  p.wait_seconds += seconds(clock::now() - t0);
  while (max_batches < 0 || p.batches < max_batches) {
    t0 = clock::now();
    if (!(it != end)) break;
    auto&& batch = *it;
    const auto t1 = clock::now();
    p.wait_seconds += seconds(t1 - t0);
    step(batch);
    const auto t2 = clock::now();
    p.compute_seconds += seconds(t2 - t1);
    ++p.batches;
    ++it;
    p.wait_seconds += seconds(clock::now() - t2);
  }
  if (timer) p.workers = timer->per_worker(seconds(clock::now() - start));
  return p;
}

}  // namespace kindling::debug
