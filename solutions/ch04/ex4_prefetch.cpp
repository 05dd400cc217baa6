// ch04.ex4 — the prefetching, in-order worker queue behind every DataLoader with num_workers > 0.
//
// kindling::data::detail::OrderedPrefetcher (kindling/data/dataloader.hpp: its members are given there):
// DataLoader's epoch hands it "load batch k" and takes the batches back in order while the threads load
// ahead.
#include "kindling/data/dataloader.hpp"

namespace kindling::data::detail {

OrderedPrefetcher::OrderedPrefetcher(std::int64_t count, std::int64_t num_workers, std::int64_t window, Load load)
    : count_(count), window_(window), load_(std::move(load)) {
  // BEGIN SOLUTION ex4: start num_workers threads running worker_loop (stop them all if one cannot start)
  try {
    for (std::int64_t w = 0; w < num_workers; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
  } catch (...) {
    shutdown();
    throw;
  }
  // END SOLUTION
}

OrderedPrefetcher::~OrderedPrefetcher() {
  // BEGIN SOLUTION ex4: stop and join the threads
  shutdown();
  // END SOLUTION
}

OrderedPrefetcher::Item OrderedPrefetcher::next() {
  // BEGIN SOLUTION ex4: wait until item next_yield_ is ready, take it out, let the threads load one more
  // [snippet: next]
  std::unique_lock lock(mutex_);
  if (next_yield_ >= count_) return nullptr;
  ready_cv_.wait(lock, [&] { return ready_.count(next_yield_) > 0; });
  auto node = ready_.extract(next_yield_);
  ++next_yield_;
  lock.unlock();
  work_cv_.notify_all();  // one more item may be prefetched now
  if (node.mapped().error) std::rethrow_exception(node.mapped().error);
  return std::move(node.mapped().item);
  // [end]
  // END SOLUTION
}

void OrderedPrefetcher::worker_loop(std::int64_t worker) {
  // BEGIN SOLUTION ex4: take the next index while it is within the window, load it outside the lock, store it
  // [snippet: worker-loop]
  for (;;) {
    std::int64_t k;
    {
      std::unique_lock lock(mutex_);
      work_cv_.wait(lock, [&] { return stop_ || next_dispatch_ >= count_ || next_dispatch_ < next_yield_ + window_; });
      if (stop_ || next_dispatch_ >= count_) return;
      k = next_dispatch_++;
    }
    Result result;
    try {
      result.item = load_(k, worker);
    } catch (...) {
      result.error = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      ready_.emplace(k, std::move(result));
    }
    ready_cv_.notify_one();  // only the consumer waits on ready_cv_
  }
  // [end]
  // END SOLUTION
}

void OrderedPrefetcher::shutdown() {
  // BEGIN SOLUTION ex4: set stop_ under the lock, wake every thread, join them
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
  // END SOLUTION
}

}  // namespace kindling::data::detail
