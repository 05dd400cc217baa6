#include "kindling/tensor/storage.hpp"
#include "kindling/tensor/memory_stats.hpp"
#include "cache_stats.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <list>
#include <string>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "kindling/tensor/checked.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/small_object_pool.hpp"
#include "tensor/device_copy.hpp"

namespace kindling {
namespace {

// One meter per device type (index ignored: one GPU is plenty for the book).
struct Meter {
  std::atomic<std::size_t> current{0}, peak{0}, count{0};
};
std::array<Meter, 2> g_meters;
std::array<memory::DeviceAllocator, 2> g_allocators;

Meter& meter(Device d) { return g_meters[static_cast<int>(d.type)]; }

void count_alloc(Device d, std::size_t n) {
  Meter& m = meter(d);
  std::size_t now = m.current.fetch_add(n) + n;
  std::size_t peak = m.peak.load();
  while (now > peak && !m.peak.compare_exchange_weak(peak, now)) {
  }
  m.count.fetch_add(1);
}

// The CPU caching allocator. A training step frees and re-allocates the same buffer sizes every
// iteration (activations, gradients, optimizer temporaries). Handing each one back to malloc costs
// twice: glibc returns large blocks (>= 128 KiB, mmap'd) to the kernel, so the next step page-faults
// and zeroes them again, and small blocks churn through malloc's bins. So, like PyTorch's CUDA
// allocator, freed blocks are kept in per-size free lists and handed out again; memory::empty_cache()
// gives them back.
//
// The idle blocks are bounded by bytes (memory::cache_limit()): at most what tensors have held at
// once since the start or the last empty_cache() (what a step of this program needs again), never
// less than kCacheFloorBytes and never more than kCacheCeilingBytes. Over the limit, the blocks freed
// longest ago go back to the system first: a program whose batch shape changes every step would
// otherwise keep one idle block per shape it ever saw.
//
// Under AddressSanitizer the cache is off, so use-after-free stays detectable. ThreadSanitizer keeps
// it (its free lists are under one mutex), so `make tsan` checks the allocator that really runs.
#if defined(__SANITIZE_ADDRESS__)
#define KINDLING_NO_CACHING_ALLOCATOR 1  // g++ defines it under -fsanitize=address
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KINDLING_NO_CACHING_ALLOCATOR 1  // clang says so through __has_feature instead
#endif
#endif
class CpuCache {
 public:
  void* allocate(std::size_t nbytes) {
    const std::size_t size = rounded(nbytes);
#ifndef KINDLING_NO_CACHING_ALLOCATOR
    if (size <= kSmallBytes) return aligned_in(detail::pool_allocate(size + 64));
    {
      std::lock_guard lock(mutex_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        auto block = it->second.back();  // the most recently freed: likeliest still in cache
        it->second.pop_back();
        if (it->second.empty()) free_.erase(it);
        void* p = block->data;
        lru_.erase(block);
        cached_bytes_ -= size;
        ++hits_;  // counters live under the lock this path takes anyway: no extra atomics
        return p;
      }
      ++misses_;
    }
#endif
    // 64-byte alignment: whole cache lines, and any SIMD width the compiler picks. Aligned by hand
    // (malloc 64 bytes more, keep the raw pointer just before the data): glibc's aligned_alloc goes
    // through _int_memalign, which is slow for the many small tensors of an autograd chain.
    void* raw = std::malloc(size + 64);
    if (!raw) {
      empty(0);  // idle cached blocks may be what stands between us and success
      raw = std::malloc(size + 64);
      if (!raw) {
        throw OutOfMemoryError("Storage: cannot allocate " + std::to_string(nbytes) + " bytes (" +
                               checked::human_bytes(static_cast<double>(nbytes)) +
                               ") on cpu: out of memory. Hint: use a smaller batch or tensor, or keep less "
                               "alive (NoGradGuard, detach).");
      }
    }
    return aligned_in(raw);
  }

  // `live` is what tensors hold right now, this block included (the storage meter).
  void release(void* data, std::size_t nbytes, [[maybe_unused]] std::size_t live) {
    [[maybe_unused]] const std::size_t size = rounded(nbytes);
#ifndef KINDLING_NO_CACHING_ALLOCATOR
    if (size <= kSmallBytes) {
      detail::pool_release(static_cast<void**>(data)[-1], size + 64);
      return;
    }
    std::vector<void*> evicted;
    {
      std::lock_guard lock(mutex_);
      high_water_ = std::max(high_water_, live);
      const std::size_t cap = limit();
      if (size <= cap) {
        lru_.push_back({size, data});
        free_[size].push_back(std::prev(lru_.end()));
        cached_bytes_ += size;
        // Over the budget: the blocks freed longest ago go first (each is the oldest of its size).
        while (cached_bytes_ > cap) {
          const Block oldest = lru_.front();
          auto it = free_.find(oldest.size);
          it->second.erase(it->second.begin());
          if (it->second.empty()) free_.erase(it);
          lru_.pop_front();
          cached_bytes_ -= oldest.size;
          evicted.push_back(oldest.data);
        }
        released_ += evicted.size();
        if (evicted.empty()) return;
      } else {
        ++released_;
        evicted.push_back(data);
      }
    }
    for (void* p : evicted) std::free(static_cast<void**>(p)[-1]);  // outside the lock: munmap is slow
    return;
#endif
    std::free(static_cast<void**>(data)[-1]);  // the raw pointer stored before the data
  }

  // Frees every idle block; what tensors hold now (`live`) starts the high-water mark anew.
  void empty(std::size_t live) {
    std::lock_guard lock(mutex_);
    for (const Block& b : lru_) std::free(static_cast<void**>(b.data)[-1]);
    released_ += lru_.size();
    lru_.clear();
    free_.clear();
    cached_bytes_ = 0;
    high_water_ = live;
  }

  std::size_t cached_bytes() {
    std::lock_guard lock(mutex_);
    return cached_bytes_;
  }

  std::size_t cache_limit() {
    std::lock_guard lock(mutex_);
    return limit();
  }

  // The cache's part of memory::memory_stats(), read under one lock so that it is consistent.
  void fill(memory::MemoryStats& stats) {
    std::lock_guard lock(mutex_);
    stats.cached = cached_bytes_;
    stats.cached_blocks = lru_.size();
    stats.cache_limit = limit();
    stats.cache_hits = hits_;
    stats.cache_misses = misses_;
    stats.released_blocks = released_;
  }

 private:
  // Tiny tensors (a loss, a bias, the 16 numbers of an autograd chain) come from the per-thread
  // small-object pool instead: no lock, no map lookup. Not counted in cached_bytes().
  static constexpr std::size_t kSmallBytes = detail::kPoolMaxBytes - 64;

  struct Block {
    std::size_t size;
    void* data;
  };

  std::size_t limit() const {
    return std::min(memory::kCacheCeilingBytes, std::max(memory::kCacheFloorBytes, high_water_));
  }

  // The first 64-byte boundary after raw (a block 64 bytes larger than needed), with raw stored
  // just before it so that release() can find it.
  static void* aligned_in(void* raw) {
    const auto addr = (reinterpret_cast<std::uintptr_t>(raw) + 64) & ~std::uintptr_t{63};
    void* data = reinterpret_cast<void*>(addr);
    static_cast<void**>(data)[-1] = raw;
    return data;
  }

  // Sizes near SIZE_MAX would wrap when rounded up (and cannot be allocated anyway).
  static std::size_t rounded(std::size_t nbytes) {
    if (nbytes > (std::numeric_limits<std::size_t>::max() >> 1)) {
      throw OutOfMemoryError("Storage: cannot allocate " + std::to_string(nbytes) + " bytes: more than memory can address.");
    }
    return (std::max<std::size_t>(nbytes, 1) + 63) / 64 * 64;
  }
  std::mutex mutex_;
  std::list<Block> lru_;  // every idle block, the longest-freed first
  // rounded size -> its idle blocks in lru_, the longest-freed first
  std::unordered_map<std::size_t, std::vector<std::list<Block>::iterator>> free_;
  std::size_t cached_bytes_ = 0;
  std::size_t high_water_ = 0;  // the most bytes tensors held at once, as seen by release()
  std::size_t hits_ = 0, misses_ = 0, released_ = 0;  // see memory::MemoryStats
};

// Never destroyed: tensors in static objects may be freed after main() returns.
CpuCache& cpu_cache() {
  static CpuCache* cache = new CpuCache;
  return *cache;
}

}  // namespace

Storage::Storage(std::size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  if (device.is_cpu()) {
    data_ = cpu_cache().allocate(nbytes);
  } else {
    auto& alloc = g_allocators[static_cast<int>(device.type)];
    if (!alloc.allocate) {
      throw DeviceError("Storage: no allocator for device " + device.str() +
                        ". Was Kindling built with CUDA (chapter 8)? Run `kindling_doctor` to check.");
    }
    data_ = alloc.allocate(nbytes);
  }
  count_alloc(device, nbytes);
}

Storage::Storage(void* data, std::size_t nbytes, Device device, std::function<void(void*)> deleter)
    : data_(data), nbytes_(nbytes), device_(device), owned_(false), deleter_(std::move(deleter)) {}

Storage::~Storage() {
  if (!owned_) {
    if (deleter_) deleter_(data_);
    return;
  }
  if (device_.is_cpu()) {
    cpu_cache().release(data_, nbytes_, meter(device_).current.load(std::memory_order_relaxed));
  } else {
    g_allocators[static_cast<int>(device_.type)].deallocate(data_);
  }
  meter(device_).current.fetch_sub(nbytes_);
}

namespace memory {
std::size_t allocated_bytes(Device device) { return meter(device).current.load(); }
std::size_t peak_allocated_bytes(Device device) { return meter(device).peak.load(); }
void reset_peak(Device device) { meter(device).peak.store(meter(device).current.load()); }
std::size_t allocation_count(Device device) { return meter(device).count.load(); }
std::size_t cached_bytes(Device device) { return device.is_cpu() ? cpu_cache().cached_bytes() : 0; }
void empty_cache() { cpu_cache().empty(meter(kCPU).current.load()); }
std::size_t cache_limit() { return cpu_cache().cache_limit(); }

// The cache's counters, for memory_stats() (memory_stats.cpp).
void detail::fill_cache_stats(MemoryStats& stats) { cpu_cache().fill(stats); }
void register_allocator(DeviceType type, DeviceAllocator allocator) {
  g_allocators[static_cast<int>(type)] = allocator;
}
}  // namespace memory

// Chapter 8's hooks for Tensor::to(Device) (device_copy.hpp): defined here, next to the allocators.
namespace detail {
namespace {
std::array<DeviceCopy, 2>& copies() {
  static std::array<DeviceCopy, 2> table;
  return table;
}
}  // namespace
void register_device_copy(DeviceType type, DeviceCopy copy) { copies()[static_cast<int>(type)] = copy; }
const DeviceCopy& device_copy(DeviceType type) { return copies()[static_cast<int>(type)]; }
}  // namespace detail

}  // namespace kindling
