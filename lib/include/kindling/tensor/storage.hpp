#pragma once
/// @file
/// Storage: the flat, reference-counted byte buffer behind every tensor. Views (permute, slice,
/// reshape, ...) are new tensors over the *same* Storage — which is why writing through a view
/// changes the original.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "kindling/tensor/device.hpp"

namespace kindling {

// [snippet: storage]
class Storage {
 public:
  /// Allocates `nbytes` (64-byte aligned, uninitialised) on `device`; counted by the
  /// memory meter.
  explicit Storage(std::size_t nbytes, Device device = kCPU);
  /// Wraps memory someone else owns (from_blob / xtensor adapt): nothing is copied,
  /// nothing is counted, and `deleter` (may be empty) runs when the last tensor using
  /// it dies.
  Storage(void* data, std::size_t nbytes, Device device,
          std::function<void(void*)> deleter);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  bool owns_memory() const { return owned_; }

  /// Bumped by every in-place write; autograd compares it with the value it saw when
  /// it saved a tensor for backward, to detect "modified by an inplace operation".
  /// Shared by all views.
  std::uint64_t version() const { return version_; }
  void bump_version() { ++version_; }

 private:
  void* data_ = nullptr;
  std::size_t nbytes_ = 0;
  Device device_;
  bool owned_ = true;
  std::function<void(void*)> deleter_;
  std::uint64_t version_ = 0;
};
// [end]

/// The allocation meter: how many bytes of tensor storage are alive right now and at the peak.
/// Later chapters use it to *show* memory effects (a graph kept alive, `NoGradGuard`, `.item()`).
namespace memory {
/// Bytes of storage currently allocated by Kindling on `device`.
std::size_t allocated_bytes(Device device = kCPU);
/// Highest value of allocated_bytes() since the start or the last reset_peak().
std::size_t peak_allocated_bytes(Device device = kCPU);
/// Starts a new peak measurement from the current allocation.
void reset_peak(Device device = kCPU);
/// Number of storage allocations made so far (handy to count copies).
std::size_t allocation_count(Device device = kCPU);
/// Bytes held by the caching allocator in freed blocks kept for reuse (not counted in
/// allocated_bytes(): no tensor uses them). Like PyTorch's memory_reserved() minus memory_allocated().
std::size_t cached_bytes(Device device = kCPU);
/// Returns the cached blocks to the system (torch.cuda.empty_cache()). It frees nothing a tensor still
/// uses, so it cannot fix running out of memory — keeping less alive (NoGradGuard, detach) does.
void empty_cache();

/// Hooks that let a later layer (a GPU device) allocate storage on its device.
struct DeviceAllocator {
  void* (*allocate)(std::size_t nbytes) = nullptr;
  void (*deallocate)(void* ptr) = nullptr;
};
void register_allocator(DeviceType type, DeviceAllocator allocator);
}  // namespace memory

}  // namespace kindling
