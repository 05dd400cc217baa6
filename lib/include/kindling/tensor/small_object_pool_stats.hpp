#pragma once
/// @file
/// The byte bounds of the small-object pool (small_object_pool.hpp) and its counters. Idle blocks
/// are bounded by bytes: each thread keeps at most kMaxLocalIdleBytes and hands the rest, in
/// batches, to one depot shared by all threads, which keeps at most kMaxDepotBytes (beyond it,
/// blocks go to free()). A thread that allocates more than it frees (a DataLoader worker whose
/// batches the training loop frees) refills from the depot before it asks malloc.
#include <cstddef>

namespace kindling::detail {

/// The most idle bytes one thread keeps for itself; over it, blocks go to the shared depot. 8 MiB
/// holds the graph of a 10,000-op autograd chain: with 1 MiB, that bench's frees and allocations went
/// through the depot's lock a batch (or a block) at a time and took 1.5x as long (bench P4).
inline constexpr std::size_t kMaxLocalIdleBytes = std::size_t{8} << 20;
/// The most idle bytes the shared depot keeps; over it, blocks go back to free().
inline constexpr std::size_t kMaxDepotBytes = std::size_t{32} << 20;
/// How many blocks move between a thread and the depot under one lock.
inline constexpr std::size_t kBatch = 64;

/// The pool's counters at one moment.
struct PoolStats {
  std::size_t refills = 0;            ///< pool_refills(): blocks asked of malloc, all threads
  std::size_t thread_idle_bytes = 0;  ///< idle bytes in the calling thread's lists (<= kMaxLocalIdleBytes)
  std::size_t depot_bytes = 0;        ///< idle bytes in the shared depot (<= kMaxDepotBytes)
};
PoolStats pool_stats();

}  // namespace kindling::detail
