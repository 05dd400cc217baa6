// The caching device allocator. cudaMalloc and cudaFree are slow (cudaFree waits for the whole
// device) and a training loop frees and allocates the same sizes every step, so, like PyTorch, a
// freed block is not returned to the device but kept in a free list by size and handed out again.
// Sizes are rounded up to 512 bytes so that nearby sizes share blocks. memory_reserved() counts
// what the cache holds from the device; memory_allocated() what tensors use. When the device runs
// out of memory the cache is emptied and the allocation tried once more before giving up.
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cuda/backend.hpp"
#include "kindling/cuda/runtime.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/storage.hpp"

// Under AddressSanitizer the emulated device's blocks (host memory) go straight back to the system,
// so that it still sees a use after free; a real device's blocks are cached as always. Under
// ThreadSanitizer the cache stays on (its lists are under one mutex): `make tsan` checks it.
#if defined(__SANITIZE_ADDRESS__)
#define KINDLING_EMULATED_NO_CACHE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KINDLING_EMULATED_NO_CACHE 1
#endif
#endif

namespace kindling::cuda {
namespace {

constexpr std::size_t kRound = 512;

std::string mib(std::size_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + "." + std::to_string(bytes % (1024 * 1024) * 10 / (1024 * 1024)) + " MiB";
}

class CachingAllocator {
 public:
  void* allocate(std::size_t nbytes) {
    const std::size_t size = (nbytes + kRound - 1) / kRound * kRound + (nbytes == 0 ? kRound : 0);
    std::lock_guard lock(mutex_);
    auto& list = free_[size];
    void* p = nullptr;
    if (!list.empty()) {
      p = list.back();
      list.pop_back();
      cached_ -= size;
    } else {
      p = backend_->raw_alloc(size);
      if (!p) {  // out of memory: give the cached blocks back and try once more
        release_cached();
        p = backend_->raw_alloc(size);
      }
      if (!p)
        throw OutOfMemoryError("cuda: out of memory: tried to allocate " + mib(size) + " on cuda:0 (" +
                               mib(allocated_) + " already allocated by tensors). Hint: a smaller "
                               "batch, kd::NoGradGuard for evaluation, and not keeping losses as "
                               "tensors (loss.item()) free device memory");
      reserved_ += size;
    }
    live_[p] = size;
    allocated_ += size;
    return p;
  }

  void deallocate(void* p) {
    std::lock_guard lock(mutex_);
    auto it = live_.find(p);
    if (it == live_.end()) return;  // not ours: never happens through Storage
    const std::size_t size = it->second;
    live_.erase(it);
    allocated_ -= size;
#if defined(KINDLING_EMULATED_NO_CACHE)
    if (std::string_view(backend_->name) == "emulated") {
      backend_->raw_free(p);
      reserved_ -= size;
      return;
    }
#endif
    free_[size].push_back(p);
    cached_ += size;
  }

  void empty() {
    std::lock_guard lock(mutex_);
    release_cached();
  }

  void set_backend(const detail::Backend* b) {
    std::lock_guard lock(mutex_);
    backend_ = b;
  }
  std::size_t allocated() {
    std::lock_guard lock(mutex_);
    return allocated_;
  }
  std::size_t reserved() {
    std::lock_guard lock(mutex_);
    return reserved_;
  }

 private:
  void release_cached() {
    for (auto& [size, list] : free_) {
      for (void* p : list) backend_->raw_free(p);
      reserved_ -= size * list.size();
      cached_ -= size * list.size();
      list.clear();
    }
  }
  std::mutex mutex_;
  const detail::Backend* backend_ = nullptr;
  std::unordered_map<std::size_t, std::vector<void*>> free_;
  std::unordered_map<void*, std::size_t> live_;
  std::size_t allocated_ = 0, reserved_ = 0, cached_ = 0;
};

// Never destroyed: a tensor in a static object may be freed after main() returns.
CachingAllocator& cache() {
  static CachingAllocator* c = new CachingAllocator;
  return *c;
}

void* allocate(std::size_t nbytes) { return cache().allocate(nbytes); }
void deallocate(void* p) { cache().deallocate(p); }

}  // namespace

namespace detail {
void install_allocator(const Backend* backend) {
  cache().set_backend(backend);
  memory::register_allocator(DeviceType::CUDA, {allocate, deallocate});
}
}  // namespace detail

std::size_t memory_allocated() { return cache().allocated(); }
std::size_t memory_reserved() { return cache().reserved(); }
void empty_cache() { cache().empty(); }

}  // namespace kindling::cuda
