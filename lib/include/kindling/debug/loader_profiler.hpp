#pragma once
/// @file
/// Is the model waiting for data? profile_loader runs your step on each batch of a loader and
/// splits the wall time into *waiting* (the loader producing the next batch: get(), transforms,
/// collate, or waiting for the workers) and *compute* (your step). A model that waits more than
/// it computes is starved: add workers (num_workers), or do the heavy get() work once and cache
/// it (data::CachedDataset, or .npy files).
#include <chrono>
#include <cstdint>
#include <string>

namespace kindling::debug {

struct LoaderProfile {
  std::int64_t batches = 0;
  double wait_seconds = 0;     ///< inside the loader: begin(), ++it and *it
  double compute_seconds = 0;  ///< inside your step
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
LoaderProfile profile_loader(Loader& loader, Step&& step, std::int64_t max_batches = -1) {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::duration d) { return std::chrono::duration<double>(d).count(); };
  LoaderProfile p;
  auto t0 = clock::now();
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
  return p;
}

}  // namespace kindling::debug
