// The CPU caching allocator: freed blocks are kept for reuse, counted apart from live tensors.
#include <catch2/catch.hpp>

#include <kindling/tensor.hpp>
#include <kindling/tensor/memory_stats.hpp>

#include "sanitizers.hpp"

namespace kd = kindling;

TEST_CASE("memory: a freed block is reused for the same size, and empty_cache returns it") {
  kd::memory::empty_cache();
  const std::size_t live_before = kd::memory::allocated_bytes();
  void* first = nullptr;
  {
    kd::Tensor a = kd::empty({1000});
    first = a.raw_data_ptr();
    CHECK(kd::memory::allocated_bytes() == live_before + 4000);
  }
  // The tensor is gone: no longer allocated, but its block is cached (4000 rounded up to 64 bytes).
  CHECK(kd::memory::allocated_bytes() == live_before);
#if !defined(KINDLING_TEST_ASAN)
  CHECK(kd::memory::cached_bytes() >= 4000);
  kd::Tensor b = kd::empty({1000});
  CHECK(b.raw_data_ptr() == first);  // same size: the cached block comes back
  CHECK(kd::memory::cached_bytes() == 0);
#endif
  kd::memory::empty_cache();
  CHECK(kd::memory::cached_bytes() == 0);
}

TEST_CASE("memory: cached blocks keep 64-byte alignment") {
  for (std::int64_t n : {1, 7, 16, 1000, 100000}) {
    kd::Tensor t = kd::zeros({n});
    CHECK(reinterpret_cast<std::uintptr_t>(t.raw_data_ptr()) % 64 == 0);
  }
}

TEST_CASE("memory: idle blocks of many distinct sizes stay within the cache's byte limit") {
#if !defined(KINDLING_TEST_ASAN)
  // A batch shape that changes every step (1000 distinct sizes, 64 KiB to 128 KiB, ~93 MiB in all)
  // used to leave one idle block per size, up to 1 GiB; now the oldest go back to the system.
  kd::memory::empty_cache();  // starts the high-water mark from what this program holds now
  const auto before = kd::memory::memory_stats();
  REQUIRE(before.allocated + (1 << 20) < kd::memory::kCacheFloorBytes);  // else the limit is not the floor
  std::size_t total = 0;
  for (std::int64_t i = 0; i < 1000; ++i) {
    kd::Tensor t = kd::empty({16384 + 16 * i});  // float32: 64 KiB + 64 * i bytes, each a new size
    total += t.nbytes();
    CHECK(kd::memory::cached_bytes() <= kd::memory::cache_limit());
  }
  const auto after = kd::memory::memory_stats();
  CHECK(total > 2 * kd::memory::kCacheFloorBytes);  // the old cache would have kept all of it
  // Tensors never held more than the floor at once, so the floor is the limit.
  CHECK(after.cache_limit == kd::memory::kCacheFloorBytes);
  CHECK(after.cached <= kd::memory::kCacheFloorBytes);
  CHECK(after.reserved - after.allocated == after.cached);
  CHECK(after.released_blocks > before.released_blocks);
  // The newest blocks are the ones kept: the last size comes straight back from the cache.
  kd::Tensor again = kd::empty({16384 + 16 * 999});
  CHECK(kd::memory::memory_stats().cache_hits == after.cache_hits + 1);
  kd::memory::empty_cache();
  CHECK(kd::memory::cached_bytes() == 0);
#endif
}

TEST_CASE("memory: a step that needed more than the floor keeps its blocks for the next step") {
#if !defined(KINDLING_TEST_ASAN)
  kd::memory::empty_cache();
  const std::size_t big = 3 * kd::memory::kCacheFloorBytes / 4;  // two of them exceed the floor
  const auto n = static_cast<std::int64_t>(big / 4);
  {
    kd::Tensor a = kd::empty({n});
    kd::Tensor b = kd::empty({n});
  }
  // Both came back to the cache: tensors held 1.5x the floor at once, so that is the limit now.
  CHECK(kd::memory::cache_limit() >= 2 * big);
  CHECK(kd::memory::cached_bytes() >= 2 * big);
  const auto hits = kd::memory::memory_stats().cache_hits;
  {
    kd::Tensor a = kd::empty({n});
    kd::Tensor b = kd::empty({n});
  }
  CHECK(kd::memory::memory_stats().cache_hits == hits + 2);
  kd::memory::empty_cache();
  CHECK(kd::memory::cache_limit() == kd::memory::kCacheFloorBytes);  // the mark starts anew
#endif
}
