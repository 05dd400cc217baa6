// ex5 — a prefetching multi-threaded loader: workers load ahead, the loop receives batches in order.
#include "ch04/data_exercises.hpp"

namespace kindling::exercises::ch04 {

PrefetchLoader::PrefetchLoader(std::int64_t num_batches, LoadFn load, PrefetchOptions options) {
  // BEGIN SOLUTION ex5: check the options, keep them, start num_workers threads running a worker loop
  if (num_batches < 0) throw ValueError("PrefetchLoader: num_batches must be >= 0, got " + std::to_string(num_batches));
  if (options.num_workers < 0) {
    throw ValueError("PrefetchLoader: num_workers must be >= 0, got " + std::to_string(options.num_workers));
  }
  if (options.capacity < 1) throw ValueError("PrefetchLoader: capacity must be >= 1, got " + std::to_string(options.capacity));
  num_batches_ = num_batches;
  load_ = std::move(load);
  capacity_ = options.capacity;
  try {
    for (std::int64_t w = 0; w < options.num_workers; ++w) threads_.emplace_back([this] { worker_loop(); });
  } catch (...) {  // could not start a thread: stop the ones that did start
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : threads_) t.join();
    throw;
  }
  // END SOLUTION
}

// BEGIN SOLUTION ex5
// Each worker: take the next batch number while the window has room, load it outside the lock, file
// the result (batch or exception) under its number, wake the loop.
void PrefetchLoader::worker_loop() {
  for (;;) {
    std::int64_t k;
    {
      std::unique_lock lock(mutex_);
      // Room in the window: batches next_yield_ .. next_yield_ + capacity_ - 1 may be in flight.
      work_cv_.wait(lock, [&] { return stop_ || next_dispatch_ >= num_batches_ || next_dispatch_ < next_yield_ + capacity_; });
      if (stop_ || next_dispatch_ >= num_batches_) return;
      k = next_dispatch_++;
    }
    Slot slot;
    try {
      slot.batch.emplace(load_(k));  // the slow part runs without the lock: workers load in parallel
    } catch (...) {
      slot.error = std::current_exception();  // handed to the loop when it reaches batch k
    }
    {
      std::lock_guard lock(mutex_);
      ready_.emplace(k, std::move(slot));
    }
    ready_cv_.notify_all();
  }
}
// STUB
// // ex5: the workers' loop (and any helper) goes here
// END SOLUTION

PrefetchLoader::~PrefetchLoader() {
  // BEGIN SOLUTION ex5
  {
    std::lock_guard lock(mutex_);
    stop_ = true;  // no new batch starts; a worker inside load_ finishes that one batch
  }
  work_cv_.notify_all();
  for (auto& t : threads_) t.join();
  // STUB
  // // ex5: stop the workers (no new batch may start) and join every thread
  // END SOLUTION
}

std::optional<Example> PrefetchLoader::next() {
  // BEGIN SOLUTION ex5: wait for the next batch in order (or load it here with 0 workers), free its slot, rethrow its error
  if (threads_.empty()) {  // num_workers = 0: load on the calling thread
    if (next_yield_ >= num_batches_) return std::nullopt;
    return load_(next_yield_++);
  }
  std::unique_lock lock(mutex_);
  if (next_yield_ >= num_batches_) return std::nullopt;
  ready_cv_.wait(lock, [&] { return ready_.count(next_yield_) > 0; });
  auto node = ready_.extract(next_yield_);
  ++next_yield_;
  lock.unlock();
  work_cv_.notify_all();  // the window moved: a worker may start one more batch
  if (node.mapped().error) std::rethrow_exception(node.mapped().error);
  return std::move(node.mapped().batch);
  // END SOLUTION
}

}  // namespace kindling::exercises::ch04
