// Memory statistics with PyTorch's names, over the storage meter and the caching allocator
// (storage.cpp); memory_summary() prints them as a small table for people, like
// torch.cuda.memory_summary() (which prints many more rows: PyTorch splits every figure by pool,
// large and small blocks, and by segment).
#include <algorithm>
#include <cstdio>
#include <string>

#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/memory_stats.hpp"
#include "cache_stats.hpp"

namespace kindling::memory {

// [snippet: memory-stats]
std::size_t memory_allocated(Device device) { return allocated_bytes(device); }
std::size_t max_memory_allocated(Device device) {
  return peak_allocated_bytes(device);
}
// What the allocator holds: the live tensors' bytes and the idle blocks it keeps.
std::size_t memory_reserved(Device device) {
  return allocated_bytes(device) + cached_bytes(device);
}
void reset_peak_memory_stats(Device device) { reset_peak(device); }

MemoryStats memory_stats(Device device) {
  MemoryStats stats;
  if (device.is_cpu()) detail::fill_cache_stats(stats);  // no other device caches (yet)
  stats.allocated = allocated_bytes(device);
  stats.peak_allocated = std::max(peak_allocated_bytes(device), stats.allocated);
  stats.reserved = stats.allocated + stats.cached;
  stats.allocations = allocation_count(device);
  return stats;
}
// [end]


std::string memory_summary(Device device) {
  const MemoryStats s = memory_stats(device);
  auto bytes = [](std::size_t n) { return checked::human_bytes(static_cast<double>(n)); };
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "memory summary (%s)\n"
                "  allocated  %10s   peak %s (used by tensors now)\n"
                "  reserved   %10s   = allocated + cached (held by the allocator)\n"
                "  cached     %10s   in %zu idle blocks (empty_cache() frees them)\n"
                "  storages   %10zu   allocated since the start\n"
                "  free lists %10zu   hits, %zu misses (malloc), %zu blocks released\n",
                device.str().c_str(), bytes(s.allocated).c_str(), bytes(s.peak_allocated).c_str(),
                bytes(s.reserved).c_str(), bytes(s.cached).c_str(), s.cached_blocks, s.allocations,
                s.cache_hits, s.cache_misses, s.released_blocks);
  return buf;
}

}  // namespace kindling::memory
