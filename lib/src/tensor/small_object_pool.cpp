// The small-object pool (small_object_pool.hpp): per-thread free lists, one per 16-byte size class,
// over one shared depot.
//
// Each thread keeps the blocks it frees and hands them out again, without a lock. A block freed on
// another thread than the one that allocated it simply joins the freeing thread's list (all blocks
// of a class have the same size, so any thread can reuse any of them). That alone leaks in a
// producer/consumer pattern: a DataLoader's workers allocate every batch and the main thread frees
// it, so the main thread's lists only grow and the workers only call malloc. So a thread keeps at
// most kMaxLocalIdleBytes idle; beyond that it moves a batch of the class it frees to the depot (one
// lock per kBatch blocks), and a thread whose list is empty takes a batch from the depot before it
// asks malloc. The depot holds at most kMaxDepotBytes; beyond that, and after a thread's lists were
// handed to the depot at its exit, blocks go straight back to free(). Idle bytes are therefore
// bounded by kMaxDepotBytes + kMaxLocalIdleBytes per live thread, whatever crosses threads.
#include "kindling/tensor/small_object_pool.hpp"
#include "kindling/tensor/small_object_pool_stats.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace kindling::detail {
namespace {

// Under AddressSanitizer the pool is off, so that a use after free stays detectable. ThreadSanitizer
// keeps it: blocks cross threads only through the depot's mutex or a shared_ptr's reference count,
// both of which it understands, so the real pool is what `make tsan` checks.
#if defined(__SANITIZE_ADDRESS__)
#define KINDLING_NO_POOL 1  // g++ under -fsanitize=address
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KINDLING_NO_POOL 1  // clang
#endif
#endif

constexpr std::size_t kGranule = 16;
constexpr std::size_t kClasses = kPoolMaxBytes / kGranule;

std::atomic<std::size_t> g_refills{0};

std::size_t size_class(std::size_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / kGranule; }
std::size_t class_bytes(std::size_t c) { return (c + 1) * kGranule; }

void* fresh_block(std::size_t c) {
  g_refills.fetch_add(1, std::memory_order_relaxed);
  // malloc's blocks are 16-byte aligned on every platform Kindling builds on (x86-64, arm64).
  if (void* p = std::malloc(class_bytes(c))) return p;
  throw std::bad_alloc();
}

#ifndef KINDLING_NO_POOL
struct FreeBlock {
  FreeBlock* next;
};

// The blocks threads gave up, per class, under one mutex. Never destroyed: tensors in static objects
// may be freed after main() returns.
struct Depot {
  std::mutex mutex;
  FreeBlock* head[kClasses] = {};
  std::size_t bytes = 0;
};
Depot& depot() {
  static Depot* d = new Depot;
  return *d;
}

// Trivially destructible, so it stays usable while other thread_local and static objects are
// destroyed (a tensor in a static may die after this thread's pool was drained).
struct ThreadPools {
  FreeBlock* head[kClasses];
  std::size_t idle_bytes;
  bool drainer_registered;
  bool drained;
};
thread_local ThreadPools t_pools{};

// Gives `chain` (n blocks of class c, linked) to the depot, or to free() where the depot is full.
void to_depot(FreeBlock* chain, std::size_t c) {
  Depot& d = depot();
  std::unique_lock lock(d.mutex);
  while (chain && d.bytes + class_bytes(c) <= kMaxDepotBytes) {
    FreeBlock* next = chain->next;
    chain->next = d.head[c];
    d.head[c] = chain;
    d.bytes += class_bytes(c);
    chain = next;
  }
  lock.unlock();
  while (chain) {
    FreeBlock* next = chain->next;
    std::free(chain);
    chain = next;
  }
}

void register_drainer(ThreadPools& pools);

// Moves up to kBatch blocks of class c from the depot to this thread's list; false if it had none.
bool from_depot(ThreadPools& pools, std::size_t c) {
  register_drainer(pools);  // this thread now holds idle blocks: they must go back at its exit
  Depot& d = depot();
  std::lock_guard lock(d.mutex);
  if (!d.head[c]) return false;
  // At least one block, and no more than keeps this thread within kMaxLocalIdleBytes.
  for (std::size_t i = 0; i < kBatch && d.head[c] &&
                          (i == 0 || pools.idle_bytes + class_bytes(c) <= kMaxLocalIdleBytes);
       ++i) {
    FreeBlock* b = d.head[c];
    d.head[c] = b->next;
    d.bytes -= class_bytes(c);
    b->next = pools.head[c];
    pools.head[c] = b;
    pools.idle_bytes += class_bytes(c);
  }
  return true;
}

void drain(ThreadPools& pools) {
  for (std::size_t c = 0; c < kClasses; ++c) {
    if (pools.head[c]) to_depot(pools.head[c], c);
    pools.head[c] = nullptr;
  }
  pools.idle_bytes = 0;
}

// Hands this thread's idle blocks to the depot when the thread ends; from then on the blocks it
// frees go to the depot (or free()) one by one.
struct Drainer {
  ~Drainer() {
    drain(t_pools);
    t_pools.drained = true;
  }
};
thread_local Drainer t_drainer;

void register_drainer(ThreadPools& pools) {
  if (!pools.drainer_registered) {
    (void)&t_drainer;  // constructs it, so its destructor runs at this thread's exit
    pools.drainer_registered = true;
  }
}
#endif

}  // namespace

void* pool_allocate(std::size_t bytes) {
  const std::size_t c = size_class(bytes);
#ifndef KINDLING_NO_POOL
  ThreadPools& pools = t_pools;
  if (pools.head[c] || (!pools.drained && from_depot(pools, c))) {
    FreeBlock* b = pools.head[c];
    pools.head[c] = b->next;
    pools.idle_bytes -= class_bytes(c);
    return b;
  }
#endif
  return fresh_block(c);
}

void pool_release(void* p, std::size_t bytes) noexcept {
  if (!p) return;
#ifndef KINDLING_NO_POOL
  const std::size_t c = size_class(bytes);
  ThreadPools& pools = t_pools;
  if (!pools.drained) {
    register_drainer(pools);
    auto* b = static_cast<FreeBlock*>(p);
    b->next = pools.head[c];
    pools.head[c] = b;
    pools.idle_bytes += class_bytes(c);
    if (pools.idle_bytes > kMaxLocalIdleBytes) {
      // Over this thread's budget: the block just freed and up to kBatch - 1 more of its class go to
      // the depot, where a thread that allocates more than it frees will find them.
      FreeBlock* chain = pools.head[c];
      FreeBlock* last = chain;
      std::size_t n = 1;
      while (n < kBatch && last->next) {
        last = last->next;
        ++n;
      }
      pools.head[c] = last->next;
      last->next = nullptr;
      pools.idle_bytes -= n * class_bytes(c);
      to_depot(chain, c);
    }
    return;
  }
  auto* b = static_cast<FreeBlock*>(p);  // after this thread's exit: the depot or free()
  b->next = nullptr;
  to_depot(b, c);
  return;
#else
  (void)bytes;
#endif
  std::free(p);
}

std::size_t pool_refills() { return g_refills.load(std::memory_order_relaxed); }

PoolStats pool_stats() {
  PoolStats s;
  s.refills = pool_refills();
#ifndef KINDLING_NO_POOL
  s.thread_idle_bytes = t_pools.idle_bytes;
  Depot& d = depot();
  std::lock_guard lock(d.mutex);
  s.depot_bytes = d.bytes;
#endif
  return s;
}

}  // namespace kindling::detail
