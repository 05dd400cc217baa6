// Pinned (page-locked) host memory for kd::pin_memory() and the DataLoader's pin_memory option:
// registered with the tensor layer when a device is set up (copy.cpp's install). On a GPU the memory
// comes from cudaHostAlloc, so the device can copy it by DMA while the CPU goes on; on the emulated
// device it is ordinary host memory, 256-byte aligned, marked pinned so that the same code runs
// (and is_pinned() says true) -- with nothing to gain from it there.
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_set>

#include "cuda/backend.hpp"
#include "kindling/cuda/runtime.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/pinned.hpp"
#include "kindling/version.hpp"

#if KINDLING_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace kindling::cuda::detail {
namespace {

std::mutex g_pinned_mutex;
std::unordered_set<const void*>& pinned_blocks() {  // guarded by g_pinned_mutex
  static std::unordered_set<const void*> blocks;
  return blocks;
}

void* alloc_pinned(std::size_t n, bool real) {
  void* p = nullptr;
#if KINDLING_HAVE_CUDA
  if (real) {
    if (cudaHostAlloc(&p, n == 0 ? 1 : n, cudaHostAllocDefault) != cudaSuccess) {
      cudaGetLastError();
      throw OutOfMemoryError("pin_memory: cudaHostAlloc could not pin " + std::to_string(n) +
                             " bytes of host memory");
    }
    return p;
  }
#else
  (void)real;
#endif
  p = ::operator new(n == 0 ? 1 : n, std::align_val_t{256}, std::nothrow);
  if (!p) throw OutOfMemoryError("pin_memory: cannot allocate " + std::to_string(n) + " bytes");
  return p;
}

void free_pinned(void* p, bool real) {
  {
    std::lock_guard lock(g_pinned_mutex);
    pinned_blocks().erase(p);
  }
#if KINDLING_HAVE_CUDA
  if (real) {
    cudaFreeHost(p);
    return;
  }
#else
  (void)real;
#endif
  ::operator delete(p, std::align_val_t{256});
}

bool is_pinned_block(const Tensor& t) {
  if (!t.storage()) return false;
  std::lock_guard lock(g_pinned_mutex);
  return pinned_blocks().count(t.storage()->data()) > 0;
}

Tensor pin(const Tensor& t) {
  if (is_pinned_block(t)) return t;
  const Tensor src = t.contiguous();
  const std::size_t n = src.nbytes();
  const bool real = !is_emulated();
  void* p = alloc_pinned(n, real);
  if (n) std::memcpy(p, src.raw_data_ptr(), n);
  {
    std::lock_guard lock(g_pinned_mutex);
    pinned_blocks().insert(p);
  }
  return from_blob(p, src.shape(), src.dtype(), {}, [real](void* q) { free_pinned(q, real); });
}

}  // namespace

void install_pinned_memory() { kindling::detail::register_pinned_memory({pin, is_pinned_block}); }

}  // namespace kindling::cuda::detail
