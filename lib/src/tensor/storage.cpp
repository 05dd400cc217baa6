#include "kindling/tensor/storage.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "kindling/tensor/error.hpp"

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

}  // namespace

Storage::Storage(std::size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  if (device.is_cpu()) {
    // 64-byte alignment: whole cache lines, and any SIMD width the compiler picks.
    const std::size_t rounded = (std::max<std::size_t>(nbytes, 1) + 63) / 64 * 64;
    // Aligned by hand (malloc 64 bytes more, keep the raw pointer just before the data): glibc's
    // aligned_alloc goes through _int_memalign, which splits and consolidates chunks and made
    // small tensors (autograd chains of tiny ops) spend ~30% of their time in malloc.
    void* raw = std::malloc(rounded + 64);
    if (!raw) throw std::bad_alloc();
    const auto addr = (reinterpret_cast<std::uintptr_t>(raw) + 64) & ~std::uintptr_t{63};
    data_ = reinterpret_cast<void*>(addr);
    static_cast<void**>(data_)[-1] = raw;
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
    std::free(static_cast<void**>(data_)[-1]);  // the raw pointer stored before the data
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
void register_allocator(DeviceType type, DeviceAllocator allocator) {
  g_allocators[static_cast<int>(type)] = allocator;
}
}  // namespace memory

}  // namespace kindling
