#pragma once
/// @file
/// A pool for the small objects every op creates: the TensorImpl and Storage of each result, and in
/// chapter 2 the backward node and the autograd metadata. A chain of 10,000 tiny ops makes tens of
/// thousands of them per backward pass, and each would otherwise be a trip through malloc and free
/// (in a profile of such a chain, glibc's allocator was over a third of the time). Freed blocks go
/// onto a free list of their size on the freeing thread and are handed out again; PyTorch gets the
/// same effect from jemalloc/mimalloc-style thread caches.
///
/// Idle blocks are bounded by bytes, per thread and in a depot shared by all threads
/// (small_object_pool_stats.hpp). Under AddressSanitizer the pool is off (every block goes to malloc
/// and free), so that a use after free stays detectable — like the caching allocator of storage.cpp;
/// ThreadSanitizer keeps both.
#include <cstddef>
#include <memory>
#include <new>

namespace kindling::detail {

/// Blocks up to this many bytes come from the pool; larger ones from operator new.
inline constexpr std::size_t kPoolMaxBytes = 1024;

/// A block of at least `bytes` bytes (<= kPoolMaxBytes), 16-byte aligned. Throws std::bad_alloc.
void* pool_allocate(std::size_t bytes);
/// Gives back a block from pool_allocate(bytes) (any thread may give it back).
void pool_release(void* p, std::size_t bytes) noexcept;

/// How many blocks the pool had to ask malloc for so far, on every thread (the benchmark of chapter
/// 2 counts them with the other heap allocations).
std::size_t pool_refills();

/// An allocator for std::allocate_shared: `std::allocate_shared<TensorImpl>(PoolAllocator<TensorImpl>{})`
/// puts the object and its reference counts in one pooled block.
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() noexcept = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}  // NOLINT: rebinding, as the standard requires

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (n <= kPoolMaxBytes / sizeof(T) && alignof(T) <= 16) return static_cast<T*>(pool_allocate(bytes));
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n <= kPoolMaxBytes / sizeof(T) && alignof(T) <= 16) pool_release(p, n * sizeof(T));
    else std::allocator<T>().deallocate(p, n);
  }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;  // stateless: any instance frees what any other allocated
  }
};

/// `std::make_shared<T>(args...)`, with the block from the pool.
template <class T, class... Args>
std::shared_ptr<T> make_pooled(Args&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>{}, std::forward<Args>(args)...);
}

}  // namespace kindling::detail
