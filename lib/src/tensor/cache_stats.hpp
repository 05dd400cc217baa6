#pragma once
// Between the caching allocator (storage.cpp) and the memory statistics (memory_stats.cpp).
#include "kindling/tensor/memory_stats.hpp"

namespace kindling::memory::detail {
/// The caching allocator's part of memory_stats(), read under its lock.
void fill_cache_stats(MemoryStats& stats);
}  // namespace kindling::memory::detail
