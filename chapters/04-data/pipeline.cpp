// Chapter 4 — inside the DataLoader: which worker loads which batch and when, and the
// order in which the loop receives them. A dataset whose get() takes a few milliseconds
// records which worker loaded each sample and when; the loop records when each batch
// arrives and when its "training step" ends. The timeline goes to ch04_pipeline.csv,
// from which the book draws its picture (figures/pipeline.py).
#include <kindling/data.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kd = kindling;
using Clock = std::chrono::steady_clock;

// One row of the timeline: who did what to which batch, from when to when (in ms).
struct Event {
  const char* what;  // "load" (a worker, one sample) or "step" (the loop, one batch)
  std::int64_t batch, worker;
  double start_ms, end_ms;
};

// The log is the one piece of shared state, behind a mutex: a real dataset's get()
// would have none.
struct Timeline {
  Clock::time_point t0 = Clock::now();
  std::mutex mutex;
  std::vector<Event> events;
  double now() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  void add(Event e) {
    std::lock_guard lock(mutex);
    events.push_back(e);
  }
};

// [snippet: timed-dataset]
struct TimedDataset {
  std::int64_t n = 48, batch_size = 4;
  std::shared_ptr<Timeline> log;
  std::int64_t size() const { return n; }
  kd::data::Example get(std::int64_t i) const {
    const double start = log->now();
    // Stands in for decoding: 1 to 4 ms, so batches finish out of order.
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + (i * 7) % 4));
    const auto worker = kd::data::get_worker_info();  // which thread is this?
    log->add({"load", i / batch_size, worker ? worker->id : -1, start, log->now()});
    return {kd::full({2}, static_cast<double>(i)), kd::scalar_tensor(i % 3)};
  }
};
// [end]

int main() {
  auto log = std::make_shared<Timeline>();
  TimedDataset dataset{.log = log};
  // [snippet: loader]
  kd::data::DataLoaderOptions options{.batch_size = 4, .num_workers = 3,
                                      .prefetch_factor = 2};
  kd::data::DataLoader loader(dataset, options);  // in order: batch k = 4k..4k+3
  std::vector<std::int64_t> arrived;
  for (auto& [x, y] : loader) {
    const double start = log->now();
    arrived.push_back(static_cast<std::int64_t>(x[0][0].item<double>()) / 4);
    std::this_thread::sleep_for(std::chrono::milliseconds(6));  // the training step
    log->add({"step", arrived.back(), -1, start, log->now()});
  }
  // [end]
  // Which worker loaded each batch, and in which order the batches were finished.
  std::vector<std::int64_t> worker_of(static_cast<std::size_t>(loader.size()), -1);
  std::vector<std::pair<double, std::int64_t>> finished;
  std::vector<double> done(static_cast<std::size_t>(loader.size()), 0);
  for (const Event& e : log->events) {
    if (std::string(e.what) != "load") continue;
    worker_of[static_cast<std::size_t>(e.batch)] = e.worker;
    done[static_cast<std::size_t>(e.batch)] =
        std::max(done[static_cast<std::size_t>(e.batch)], e.end_ms);
  }
  for (std::size_t k = 0; k < done.size(); ++k)
    finished.emplace_back(done[k], static_cast<std::int64_t>(k));
  std::sort(finished.begin(), finished.end());
  std::printf("%lld batches of %lld, %lld workers, at most %lld batches loaded ahead\n",
              static_cast<long long>(loader.size()),
              static_cast<long long>(options.batch_size),
              static_cast<long long>(options.num_workers),
              static_cast<long long>(options.num_workers * options.prefetch_factor));
  std::printf("finished by the workers in the order:");
  for (auto& [t, k] : finished) std::printf(" %lld", static_cast<long long>(k));
  std::printf("\nreceived by the loop in the order:   ");
  bool in_order = true;
  for (std::size_t k = 0; k < arrived.size(); ++k) {
    std::printf(" %lld", static_cast<long long>(arrived[k]));
    in_order &= arrived[k] == static_cast<std::int64_t>(k);
  }
  std::printf("\nin order: %s; loaded by workers:", in_order ? "yes" : "NO");
  for (auto w : worker_of) std::printf(" %lld", static_cast<long long>(w));
  std::printf("\n");

  std::ofstream csv("ch04_pipeline.csv");
  csv << "what,batch,worker,start_ms,end_ms\n";
  for (const Event& e : log->events)
    csv << e.what << "," << e.batch << "," << e.worker << "," << e.start_ms << ","
        << e.end_ms << "\n";
  return in_order ? 0 : 1;
}
