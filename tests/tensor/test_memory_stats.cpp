// Memory statistics over the caching allocator, with PyTorch's semantics: allocated is what tensors
// use, reserved is what the allocator holds (allocated + idle cached blocks), empty_cache() lowers
// reserved and never allocated, and the peak is reset by reset_peak_memory_stats().
#include <catch2/catch.hpp>

#include <kindling/tensor.hpp>
#include <kindling/tensor/checked.hpp>
#include <kindling/tensor/memory_stats.hpp>

#include <string>
#include <vector>

#include "sanitizers.hpp"

namespace kd = kindling;

#if !defined(KINDLING_TEST_ASAN)
constexpr bool kCaching = true;  // under AddressSanitizer every free goes straight back to malloc
#else
constexpr bool kCaching = false;
#endif

TEST_CASE("memory: reserved is allocated plus the idle cache, at every step") {
  kd::memory::empty_cache();
  const std::size_t base = kd::memory::memory_allocated();
  CHECK(kd::memory::memory_reserved() == base);  // nothing cached after empty_cache
  {
    kd::Tensor a = kd::empty({4096});            // 16 KiB
    CHECK(kd::memory::memory_allocated() == base + 16384);
    CHECK(kd::memory::memory_reserved() == base + 16384);
  }
  // Freed: no longer allocated, still reserved (the block waits in its free list).
  CHECK(kd::memory::memory_allocated() == base);
  CHECK(kd::memory::memory_reserved() == base + (kCaching ? 16384u : 0u));
  const auto s = kd::memory::memory_stats();
  CHECK(s.reserved - s.allocated == s.cached);
  CHECK(s.cached_blocks == (kCaching ? 1u : 0u));
  kd::memory::empty_cache();
  CHECK(kd::memory::memory_reserved() == base);
}

TEST_CASE("memory: empty_cache lowers reserved, never allocated") {
  kd::memory::empty_cache();
  const std::size_t base = kd::memory::memory_allocated();
  kd::Tensor kept = kd::ones({100000});  // 400,000 bytes a tensor still uses
  { kd::Tensor dropped = kd::ones({50000}); }
  const std::size_t allocated = kd::memory::memory_allocated();
  const std::size_t reserved = kd::memory::memory_reserved();
  CHECK(allocated == base + 400000);
  CHECK(reserved == allocated + (kCaching ? 200000u : 0u));
  kd::memory::empty_cache();
  CHECK(kd::memory::memory_allocated() == allocated);  // the live tensor is untouched...
  CHECK(kd::memory::memory_reserved() == allocated);   // ...only the idle block went back
  CHECK(kept.sum().item<double>() == 100000.0);        // and its data is intact
}

TEST_CASE("memory: max_memory_allocated keeps the peak until reset_peak_memory_stats") {
  kd::memory::reset_peak_memory_stats();
  const std::size_t base = kd::memory::memory_allocated();
  CHECK(kd::memory::max_memory_allocated() == base);
  {
    kd::Tensor a = kd::empty({250000});  // 1 MB
    kd::Tensor b = kd::empty({250000});
    CHECK(kd::memory::max_memory_allocated() == base + 2000000);
  }
  kd::Tensor c = kd::empty({1000});
  CHECK(kd::memory::memory_allocated() == base + 4000);
  CHECK(kd::memory::max_memory_allocated() == base + 2000000);  // the peak outlives the tensors
  kd::memory::reset_peak_memory_stats();
  CHECK(kd::memory::max_memory_allocated() == base + 4000);     // a new peak starts from now
}

TEST_CASE("memory: the free lists count hits, misses and released blocks") {
  kd::memory::empty_cache();
  const auto before = kd::memory::memory_stats();
  { kd::Tensor a = kd::empty({10000}); }  // a miss: the first block of that size comes from malloc
  { kd::Tensor b = kd::empty({10000}); }  // a hit: the same block comes back
  { kd::Tensor c = kd::empty({10001}); }  // 40,004 bytes round to another size class: a miss
  const auto after = kd::memory::memory_stats();
  CHECK(after.allocations - before.allocations == 3);
  if (kCaching) {
    CHECK(after.cache_hits - before.cache_hits == 1);
    CHECK(after.cache_misses - before.cache_misses == 2);
    CHECK(after.cached_blocks == 2);
    kd::memory::empty_cache();
    CHECK(kd::memory::memory_stats().released_blocks - after.released_blocks == 2);
  }
  // A tiny tensor comes from the small-object pool: neither a hit nor a miss.
  const auto small_before = kd::memory::memory_stats();
  { kd::Tensor tiny = kd::empty({3}); }
  const auto small_after = kd::memory::memory_stats();
  CHECK(small_after.cache_hits == small_before.cache_hits);
  CHECK(small_after.cache_misses == small_before.cache_misses);
}

TEST_CASE("memory: blocks of the wrong size stay reserved (fragmentation of exact-size free lists)") {
  kd::memory::empty_cache();
  const std::size_t base = kd::memory::memory_allocated();
  // A batch that grows by one row each step: every step asks for a size the cache never saw, so
  // the idle blocks of the earlier steps cannot serve it and reserved climbs while allocated stays
  // at one batch.
  for (std::int64_t rows = 64; rows < 72; ++rows) {
    kd::Tensor batch = kd::empty({rows, 1024});
    CHECK(kd::memory::memory_allocated() == base + std::size_t(rows) * 4096);
  }
  const auto s = kd::memory::memory_stats();
  CHECK(s.allocated == base);
  if (kCaching) {
    CHECK(s.cached_blocks == 8);
    CHECK(s.cached == std::size_t(64 + 65 + 66 + 67 + 68 + 69 + 70 + 71) * 4096);
  }
  kd::memory::empty_cache();
  CHECK(kd::memory::memory_reserved() == base);
}

TEST_CASE("memory: memory_summary shows the current figures") {
  kd::memory::empty_cache();
  kd::Tensor a = kd::empty({262144});  // 1 MiB
  const auto s = kd::memory::memory_stats();
  const std::string summary = kd::memory::memory_summary();
  CHECK(summary.find("memory summary (cpu)") != std::string::npos);
  CHECK(summary.find("allocated") != std::string::npos);
  CHECK(summary.find(kd::checked::human_bytes(double(s.allocated))) != std::string::npos);
  CHECK(summary.find(kd::checked::human_bytes(double(s.reserved))) != std::string::npos);
  CHECK(summary.find(std::to_string(s.allocations)) != std::string::npos);
}
