// The small-object pool behind every op's TensorImpl, Storage, backward node and tiny tensor data.
#include <catch2/catch.hpp>

#include <kindling/tensor.hpp>
#include <kindling/tensor/small_object_pool.hpp>
#include <kindling/tensor/small_object_pool_stats.hpp>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <cstring>
#include <thread>
#include <vector>

#include "sanitizers.hpp"

namespace kd = kindling;

TEST_CASE("small-object pool: blocks of every size class are usable, aligned and reused") {
  std::vector<std::pair<void*, std::size_t>> blocks;
  for (std::size_t bytes = 1; bytes <= kd::detail::kPoolMaxBytes; bytes += 7) {
    void* p = kd::detail::pool_allocate(bytes);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(p) % 16 == 0);
    std::memset(p, 0xab, bytes);  // the whole block is ours (ASan checks it when the pool is off)
    blocks.emplace_back(p, bytes);
  }
  for (auto [p, bytes] : blocks) kd::detail::pool_release(p, bytes);
#if !defined(KINDLING_TEST_ASAN)
  // Given back, then asked for again: served from the free lists, not malloc.
  const std::size_t refills = kd::detail::pool_refills();
  for (auto& [p, bytes] : blocks) p = kd::detail::pool_allocate(bytes);
  CHECK(kd::detail::pool_refills() == refills);
  for (auto [p, bytes] : blocks) kd::detail::pool_release(p, bytes);
#endif
}

TEST_CASE("small-object pool: blocks made on one thread may be freed on another", "[threads]") {
  std::vector<kd::Tensor> made(2000);
  std::thread producer([&] {
    for (std::size_t i = 0; i < made.size(); ++i) made[i] = kd::full({static_cast<std::int64_t>(i % 40)}, 1.0);
  });
  producer.join();  // the producer's thread is gone (its own idle blocks drained); its tensors live on
  double total = 0;
  for (const kd::Tensor& t : made) total += t.sum().item<double>();
  std::int64_t expected = 0;
  for (std::size_t i = 0; i < made.size(); ++i) expected += static_cast<std::int64_t>(i % 40);
  CHECK(total == static_cast<double>(expected));
  std::thread consumer([&] { made.clear(); });  // freed on a third thread
  consumer.join();
  kd::Tensor after = kd::ones({8}) * 2;  // the main thread's pool still works
  CHECK(after.sum().item<double>() == 16.0);
}

TEST_CASE("small-object pool: tiny tensors keep 64-byte aligned data") {
  std::vector<kd::Tensor> keep;
  for (std::int64_t n : {1, 2, 15, 16, 100, 239, 240, 241}) {
    keep.push_back(kd::zeros({n}));
    CHECK(reinterpret_cast<std::uintptr_t>(keep.back().raw_data_ptr()) % 64 == 0);
    CHECK(keep.back().sum().item<double>() == 0.0);
  }
}

TEST_CASE("small-object pool: blocks made on one thread and freed on another circulate, bounded",
          "[threads]") {
#if !defined(KINDLING_TEST_ASAN)
  // A producer allocates, the main thread frees (a DataLoader's worker and its training loop). The
  // main thread's lists used to grow to their cap while the producer called malloc for every block;
  // now the main thread's excess goes to the shared depot and the producer takes it from there.
  namespace kdd = kd::detail;
  constexpr std::size_t kPerRound = 100, kBytes = 200;  // 20 KB a round
  // Rounds until the main thread's lists reach their cap (8 MiB: ~420 rounds), then as many again:
  // the second half runs in the steady state.
  constexpr int kFill = static_cast<int>(kdd::kMaxLocalIdleBytes / (kPerRound * kBytes)) + 1;
  constexpr int kRounds = 2 * kFill + 50;
  std::mutex m;
  std::condition_variable cv;
  int made = 0, freed = 0;
  std::vector<void*> handoff;
  std::thread producer([&] {
    for (int r = 0; r < kRounds; ++r) {
      std::vector<void*> blocks;
      for (std::size_t i = 0; i < kPerRound; ++i) blocks.push_back(kdd::pool_allocate(kBytes));
      std::unique_lock lock(m);
      handoff = std::move(blocks);
      ++made;
      cv.notify_all();
      cv.wait(lock, [&] { return freed == made; });
    }
  });
  std::size_t refills_half = 0;
  for (int r = 0; r < kRounds; ++r) {
    std::vector<void*> blocks;
    {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return made > r; });
      blocks = std::move(handoff);
    }
    for (void* p : blocks) kdd::pool_release(p, kBytes);
    const kdd::PoolStats s = kdd::pool_stats();
    CHECK(s.thread_idle_bytes <= kdd::kMaxLocalIdleBytes);
    CHECK(s.depot_bytes <= kdd::kMaxDepotBytes);
    if (r == kRounds / 2) refills_half = s.refills;
    {
      std::lock_guard lock(m);
      ++freed;
    }
    cv.notify_all();
  }
  producer.join();
  // In the second half the producer found every block it needed in the depot (before: 15,000 mallocs).
  CHECK(kdd::pool_refills() - refills_half < kPerRound);
#endif
}
