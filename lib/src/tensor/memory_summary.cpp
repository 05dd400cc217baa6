// memory::memory_summary(): the allocator's counters as a small table for people, like
// torch.cuda.memory_summary() (which prints many more rows: PyTorch splits every figure by pool,
// large and small blocks, and by segment).
#include <cstdio>
#include <string>

#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/memory_stats.hpp"

namespace kindling::memory {

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
