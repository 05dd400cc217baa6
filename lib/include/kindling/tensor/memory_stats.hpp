#pragma once
/// @file
/// Memory statistics of the caching allocator, with PyTorch's names (`torch.cuda.memory_allocated()`,
/// `memory_reserved()`, `max_memory_allocated()`, `reset_peak_memory_stats()`, `memory_stats()`,
/// `memory_summary()`); `empty_cache()` and the meter they read are in storage.hpp.
#include <cstddef>
#include <string>

#include "kindling/tensor/device.hpp"
#include "kindling/tensor/storage.hpp"

namespace kindling::memory {
/// PyTorch's names for the storage meter (`torch.cuda.memory_allocated()` and friends), and the
/// allocator's view next to it. *Allocated* is what tensors use right now; *reserved* is what the
/// caching allocator holds: allocated + the idle blocks in its free lists. So `empty_cache()`
/// lowers reserved (to allocated) and never allocated: only dropping tensors does that. Sizes are
/// the bytes tensors asked for (PyTorch counts its 512-byte rounded blocks; Kindling rounds to 64
/// bytes and leaves that slack out, so that `reserved - allocated` is exactly the idle cache).
std::size_t memory_allocated(Device device = kCPU);
/// Highest memory_allocated() since the start or the last reset_peak_memory_stats().
std::size_t max_memory_allocated(Device device = kCPU);
/// memory_allocated() + the cached idle blocks: what the allocator keeps from the system.
std::size_t memory_reserved(Device device = kCPU);
/// Starts a new peak from the current allocation (torch.cuda.reset_peak_memory_stats()).
void reset_peak_memory_stats(Device device = kCPU);

/// The allocator's counters at one moment (torch.cuda.memory_stats(), a small part of it).
struct MemoryStats {
  std::size_t allocated = 0;       ///< memory_allocated()
  std::size_t peak_allocated = 0;  ///< max_memory_allocated()
  std::size_t reserved = 0;        ///< memory_reserved()
  std::size_t cached = 0;          ///< reserved - allocated: idle blocks kept for reuse
  std::size_t cached_blocks = 0;   ///< how many idle blocks
  std::size_t cache_limit = 0;     ///< the most idle bytes the cache keeps now (memory::cache_limit())
  std::size_t allocations = 0;     ///< storages allocated since the start
  /// Requests of more than 960 bytes served from the free lists (hits) or from malloc (misses);
  /// smaller ones come from the small-object pool and are in neither.
  std::size_t cache_hits = 0, cache_misses = 0;
  std::size_t released_blocks = 0;  ///< idle blocks given back to the system (empty_cache, cap)
};
MemoryStats memory_stats(Device device = kCPU);

/// The CPU cache keeps idle blocks up to cache_limit() bytes: the most bytes tensors held at once
/// since the start or the last empty_cache() (what a step needs again; empty_cache() starts this
/// high-water mark anew from what tensors hold then), clamped to [kCacheFloorBytes,
/// kCacheCeilingBytes]. Over it, the blocks freed longest ago go back to the system first.
inline constexpr std::size_t kCacheFloorBytes = std::size_t{32} << 20;
inline constexpr std::size_t kCacheCeilingBytes = std::size_t{1} << 30;
std::size_t cache_limit();
/// A table of memory_stats() for people (torch.cuda.memory_summary()).
std::string memory_summary(Device device = kCPU);

}  // namespace kindling::memory
