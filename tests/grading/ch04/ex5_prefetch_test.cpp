// ch04.ex5 — PrefetchLoader: in order, parallel, bounded, errors at the right batch, clean early exit.
// Every test here runs worker threads ([threads]); load functions sleep to make the timing visible.
#include <memory>
#include <mutex>
#include <stdexcept>

#include "ch04_grading.hpp"

using namespace ch04_grading;
using namespace std::chrono_literals;

namespace {
// Batch k is recognisable: data = [k, k], target = k.
kd::data::Example batch_of(std::int64_t k) {
  return {kd::full({2}, static_cast<double>(k)), kd::scalar_tensor(k, {.dtype = kd::kInt64})};
}

// Counts how often each batch was loaded, how many loads run at once, and the largest batch started.
struct Probe {
  explicit Probe(std::int64_t n) : loads(static_cast<std::size_t>(n)) {}
  std::vector<std::atomic<int>> loads;
  std::atomic<std::int64_t> running{0}, max_running{0}, max_started{-1}, total{0};
  void enter(std::int64_t k) {
    ++loads[static_cast<std::size_t>(k)];
    ++total;
    update_max(max_started, k);
    update_max(max_running, ++running);
  }
  void leave() { --running; }
};

// Drains a loader; returns the batch numbers it produced, checking each batch's contents.
std::vector<std::int64_t> drain(ex::PrefetchLoader& loader) {
  std::vector<std::int64_t> order;
  while (auto b = loader.next()) {
    const std::int64_t k = b->target.item<std::int64_t>();
    REQUIRE(kd::equal(b->data, batch_of(k).data));
    order.push_back(k);
    if (order.size() > 100000) FAIL("next() never returned std::nullopt");
  }
  return order;
}
}  // namespace

TEST_CASE("ch04.ex5: batches come out in order, each loaded once, for 0 to 4 workers",
          "[ch04][ex5][pts=6][threads]") {
  const std::int64_t n = 40;
  // Random load times (fixed per batch), so later batches often finish first.
  std::vector<int> delay_us(n);
  kd::Generator gen(61);
  for (auto& d : delay_us) d = static_cast<int>(gen.randint(0, 3000));
  for (std::int64_t workers : {0, 1, 2, 4}) {
    for (std::int64_t capacity : {1, 3, 8}) {
      INFO("num_workers " << workers << ", capacity " << capacity);
      Probe probe(n);
      ex::PrefetchLoader loader(n, [&](std::int64_t k) {
        probe.enter(k);
        std::this_thread::sleep_for(std::chrono::microseconds(delay_us[static_cast<std::size_t>(k)]));
        probe.leave();
        return batch_of(k);
      }, {.num_workers = workers, .capacity = capacity});
      const std::vector<std::int64_t> order = drain(loader);
      std::vector<std::int64_t> expected(n);
      for (std::int64_t k = 0; k < n; ++k) expected[static_cast<std::size_t>(k)] = k;
      REQUIRE(order == expected);
      for (std::int64_t k = 0; k < n; ++k) {
        INFO("batch " << k);
        REQUIRE(probe.loads[static_cast<std::size_t>(k)] == 1);
      }
      CHECK_FALSE(loader.next().has_value());  // still the end
    }
  }
  ex::PrefetchLoader empty(0, [](std::int64_t k) { return batch_of(k); }, {.num_workers = 2, .capacity = 2});
  CHECK_FALSE(empty.next().has_value());
}

TEST_CASE("ch04.ex5: workers load in parallel", "[ch04][ex5][pts=4][threads]") {
  const std::int64_t n = 16;
  Probe probe(n);
  ex::PrefetchLoader loader(n, [&](std::int64_t k) {
    probe.enter(k);
    std::this_thread::sleep_for(30ms);  // sleeping, not computing: overlaps even on one core
    probe.leave();
    return batch_of(k);
  }, {.num_workers = 4, .capacity = 8});
  drain(loader);
  INFO("most loads running at the same time: " << probe.max_running.load());
  CHECK(probe.max_running >= 3);
  CHECK(probe.max_running <= 4);  // never more than num_workers
}

TEST_CASE("ch04.ex5: prefetching stays within capacity batches of the loop", "[ch04][ex5][pts=6][threads]") {
  const std::int64_t n = 30;
  for (std::int64_t capacity : {1, 2, 5}) {
    INFO("capacity " << capacity << ", 3 workers");
    Probe probe(n);
    ex::PrefetchLoader loader(n, [&](std::int64_t k) {
      probe.enter(k);
      std::this_thread::sleep_for(1ms);
      probe.leave();
      return batch_of(k);
    }, {.num_workers = 3, .capacity = capacity});
    // A slow loop: between two next() calls the workers have all the time they want to run ahead.
    std::this_thread::sleep_for(100ms);
    INFO("before the first next(): largest batch started " << probe.max_started.load());
    CHECK(probe.max_started < capacity);
    CHECK(probe.max_started == capacity - 1);  // ... and they did prefetch, up to the limit
    for (std::int64_t returned = 1; returned <= n; ++returned) {
      auto b = loader.next();
      REQUIRE(b.has_value());
      std::this_thread::sleep_for(5ms);
      INFO(returned << " batches returned; largest batch started " << probe.max_started.load());
      REQUIRE(probe.max_started < returned + capacity);
    }
    CHECK_FALSE(loader.next().has_value());
  }
}

TEST_CASE("ch04.ex5: a failing batch is rethrown when the loop reaches it", "[ch04][ex5][pts=5][threads]") {
  for (std::int64_t workers : {0, 3}) {
    INFO("num_workers " << workers);
    const std::int64_t n = 20, bad = 7;
    ex::PrefetchLoader loader(n, [&](std::int64_t k) {
      if (k == bad) throw kd::ValueError("batch " + std::to_string(k) + " is broken");
      std::this_thread::sleep_for(1ms);
      return batch_of(k);
    }, {.num_workers = workers, .capacity = 4});
    for (std::int64_t k = 0; k < bad; ++k) {
      auto b = loader.next();  // every batch before the bad one still arrives
      REQUIRE(b.has_value());
      REQUIRE(b->target.item<std::int64_t>() == k);
    }
    try {
      loader.next();
      FAIL("next() did not rethrow the load error of batch 7");
    } catch (const kd::ValueError& e) {
      INFO("message: " << e.what());
      CHECK(message_has(e, "batch 7 is broken"));
    }
  }  // the loader is destroyed with workers still running: must not hang or crash
}

TEST_CASE("ch04.ex5: leaving early stops and joins the workers promptly", "[ch04][ex5][pts=6][threads]") {
  const std::int64_t n = 1000, capacity = 4;
  auto total = std::make_shared<std::atomic<std::int64_t>>(0);
  {
    auto t0 = std::chrono::steady_clock::now();
    {
      ex::PrefetchLoader loader(n, [total](std::int64_t k) {
        ++*total;
        std::this_thread::sleep_for(5ms);
        return batch_of(k);
      }, {.num_workers = 4, .capacity = capacity});
      for (int i = 0; i < 3; ++i) REQUIRE(loader.next().has_value());  // then `break`
    }
    const double ms = ms_since(t0);
    INFO("3 batches + destruction took " << ms << " ms; loads started: " << total->load());
    CHECK(ms < 1000);                     // 1000 batches x 5 ms / 4 workers would take 1250 ms
    CHECK(*total <= 3 + capacity);        // no batch beyond the window was started
  }
  const std::int64_t after = total->load();
  std::this_thread::sleep_for(50ms);
  CHECK(total->load() == after);  // every worker is gone: nothing loads any more
  {
    // Destroyed before the first next(): also fine.
    ex::PrefetchLoader loader(n, [total](std::int64_t k) {
      ++*total;
      std::this_thread::sleep_for(2ms);
      return batch_of(k);
    }, {.num_workers = 2, .capacity = 2});
  }
}

TEST_CASE("ch04.ex5: 0 workers load lazily on the calling thread, option errors", "[ch04][ex5][pts=3]") {
  const auto me = std::this_thread::get_id();
  std::int64_t loads = 0;
  bool same_thread = true;
  ex::PrefetchLoader loader(5, [&](std::int64_t k) {
    ++loads;
    same_thread = same_thread && std::this_thread::get_id() == me;
    return batch_of(k);
  }, {.num_workers = 0, .capacity = 2});
  CHECK(loads == 0);  // nothing happens before the loop asks
  for (std::int64_t k = 0; k < 5; ++k) {
    auto b = loader.next();
    REQUIRE(b.has_value());
    CHECK(b->target.item<std::int64_t>() == k);
    CHECK(loads == k + 1);
  }
  CHECK(same_thread);
  CHECK_FALSE(loader.next().has_value());
  auto load = [](std::int64_t k) { return batch_of(k); };
  CHECK_THROWS_AS(ex::PrefetchLoader(-1, load, {.num_workers = 1, .capacity = 1}), kd::ValueError);
  CHECK_THROWS_AS(ex::PrefetchLoader(5, load, {.num_workers = -1, .capacity = 1}), kd::ValueError);
  CHECK_THROWS_AS(ex::PrefetchLoader(5, load, {.num_workers = 2, .capacity = 0}), kd::ValueError);
}
