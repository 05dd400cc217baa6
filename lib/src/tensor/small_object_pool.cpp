// The small-object pool (small_object_pool.hpp): per-thread free lists, one per 16-byte size class.
//
// Each thread keeps the blocks it frees and hands them out again, without a lock. A block freed on
// another thread than the one that allocated it simply joins the freeing thread's list (all blocks
// of a class have the same size, so any thread can reuse any of them). A thread keeps at most
// kMaxIdleBytes of idle blocks (a 10,000-op graph freed at once is ~10 MB of them, all wanted again by
// the next iteration); beyond that, and after the thread's lists were drained at its exit, blocks go
// straight back to free().
#include "kindling/tensor/small_object_pool.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace kindling::detail {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KINDLING_NO_POOL 1  // g++ under -fsanitize=address / thread
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KINDLING_NO_POOL 1  // clang
#endif
#endif

constexpr std::size_t kGranule = 16;
constexpr std::size_t kClasses = kPoolMaxBytes / kGranule;
constexpr std::size_t kMaxIdleBytes = std::size_t{32} << 20;

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

// Trivially destructible, so it stays usable while other thread_local and static objects are
// destroyed (a tensor in a static may die after this thread's pool was drained).
struct ThreadPools {
  FreeBlock* head[kClasses];
  std::size_t idle_bytes;
  bool drainer_registered;
  bool drained;
};
thread_local ThreadPools t_pools{};

void drain(ThreadPools& pools) {
  for (std::size_t c = 0; c < kClasses; ++c) {
    while (FreeBlock* b = pools.head[c]) {
      pools.head[c] = b->next;
      std::free(b);
    }
  }
  pools.idle_bytes = 0;
}

// Frees this thread's idle blocks when the thread ends; from then on blocks go straight to free().
struct Drainer {
  ~Drainer() {
    drain(t_pools);
    t_pools.drained = true;
  }
};
thread_local Drainer t_drainer;
#endif

}  // namespace

void* pool_allocate(std::size_t bytes) {
  const std::size_t c = size_class(bytes);
#ifndef KINDLING_NO_POOL
  ThreadPools& pools = t_pools;
  if (FreeBlock* b = pools.head[c]) {
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
  if (!pools.drained && pools.idle_bytes + class_bytes(c) <= kMaxIdleBytes) {
    if (!pools.drainer_registered) {
      (void)&t_drainer;  // constructs it, so its destructor runs at this thread's exit
      pools.drainer_registered = true;
    }
    auto* b = static_cast<FreeBlock*>(p);
    b->next = pools.head[c];
    pools.head[c] = b;
    pools.idle_bytes += class_bytes(c);
    return;
  }
#else
  (void)bytes;
#endif
  std::free(p);
}

std::size_t pool_refills() { return g_refills.load(std::memory_order_relaxed); }

}  // namespace kindling::detail
