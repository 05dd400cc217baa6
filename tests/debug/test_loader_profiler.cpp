// profile_loader: counts batches and splits time into the loader's and the step's. Only lower
// bounds that sleep_for guarantees are checked (no assertion about speed).
#include <catch2/catch.hpp>
#include <kindling/kindling.hpp>

#include <chrono>
#include <thread>

namespace kd = kindling;

namespace {
struct SlowDataset {  // a get() that does heavy work: 2 ms per sample
  std::int64_t size() const { return 12; }
  kd::data::Example get(std::int64_t i) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return {kd::full({3}, static_cast<double>(i)), kd::scalar_tensor(i % 2, {.dtype = kd::kInt64})};
  }
};
}  // namespace

TEST_CASE("loader_profiler: waiting covers get(), compute covers the step") {
  SlowDataset ds;
  kd::data::DataLoader loader(ds, {.batch_size = 4});
  std::int64_t seen = 0;
  const auto p = kd::debug::profile_loader(loader, [&](auto& batch) {
    seen += batch.data.size(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  CHECK(p.batches == 3);
  CHECK(seen == 12);
  CHECK(p.wait_seconds >= 12 * 0.002);
  CHECK(p.compute_seconds >= 3 * 0.001);
  CHECK(p.to_string().find("3 batches") != std::string::npos);
  const auto two = kd::debug::profile_loader(loader, [](auto&) {}, 2);
  CHECK(two.batches == 2);
}

TEST_CASE("loader_profiler: per worker, the time inside get() and the idle rest", "[threads]") {
  auto timer = std::make_shared<kd::debug::GetTimer>();
  kd::debug::TimedDataset<SlowDataset> ds(SlowDataset{}, timer);
  SECTION("two workers share the 12 samples; each one's get() time covers its sleeps") {
    kd::data::DataLoader loader(ds, {.batch_size = 2, .num_workers = 2});
    const auto p = kd::debug::profile_loader(loader, [](auto&) {}, -1, timer.get());
    CHECK(p.batches == 6);
    std::int64_t samples = 0;
    for (const auto& w : p.workers) {
      INFO("worker " << w.worker);
      CHECK((w.worker == 0 || w.worker == 1));
      CHECK(w.get_seconds >= static_cast<double>(w.samples) * 0.002);
      CHECK(w.idle_seconds >= 0);
      CHECK(w.busy_share() <= 1.0);
      samples += w.samples;
    }
    CHECK(samples == 12);
    CHECK(p.to_string().find("in get()") != std::string::npos);
  }
  SECTION("without workers, the loop's own thread loads") {
    kd::data::DataLoader loader(ds, {.batch_size = 4});
    const auto p = kd::debug::profile_loader(loader, [](auto&) {}, -1, timer.get());
    REQUIRE(p.workers.size() == 1);
    CHECK(p.workers[0].worker == -1);
    CHECK(p.workers[0].samples == 12);
    CHECK(p.workers[0].get_seconds >= 12 * 0.002);
    CHECK(p.to_string().find("loop thread: 12 samples") != std::string::npos);
  }
  SECTION("a profile without a timer has no per-worker part") {
    kd::data::DataLoader loader(ds, {.batch_size = 4});
    CHECK(kd::debug::profile_loader(loader, [](auto&) {}).workers.empty());
  }
}
