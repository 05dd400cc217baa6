// The CPU caching allocator: freed blocks are kept for reuse, counted apart from live tensors.
#include <catch2/catch.hpp>

#include <kindling/tensor.hpp>

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
#if !defined(KINDLING_TEST_ASAN) && !defined(KINDLING_TEST_TSAN)
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
