// is_available(), the device's name and properties, and the reason when there is no GPU. With
// CUDA the answers come from the CUDA runtime; without it, from the build itself.
#include "kindling/cuda/runtime.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "cuda/backend.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/version.hpp"

#if KINDLING_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace kindling::cuda {
namespace detail {
namespace {

const Backend* g_backend = nullptr;
std::mutex g_backend_mutex;


// The emulated device: host memory, 256-byte aligned like cudaMalloc's.
void* host_alloc(std::size_t n) { return ::operator new(n == 0 ? 1 : n, std::align_val_t{256}, std::nothrow); }
void host_free(void* p) { ::operator delete(p, std::align_val_t{256}); }
void host_copy(void* dst, const void* src, std::size_t n) {
  if (n) std::memcpy(dst, src, n);
}
const Backend kEmulated{"emulated", host_alloc, host_free, host_copy, host_copy};

#if KINDLING_HAVE_CUDA
std::string version_str(int v) {  // 12040 -> "12.4"
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw DeviceError(std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
void* cuda_alloc(std::size_t n) {
  void* p = nullptr;
  if (cudaMalloc(&p, n == 0 ? 1 : n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free out-of-memory error
    return nullptr;
  }
  return p;
}
void cuda_free(void* p) { cudaFree(p); }
void cuda_to_device(void* dst, const void* src, std::size_t n) {
  if (n) check(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice), "copy to the device");
}
void cuda_to_host(void* dst, const void* src, std::size_t n) {
  if (n) check(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost), "copy to the host");
}
const Backend kCuda{"CUDA", cuda_alloc, cuda_free, cuda_to_device, cuda_to_host};
#endif

struct Probe {
  int count = 0;
  int driver = 0, runtime = 0;
  std::string reason;
};

Probe probe_once() {
  Probe p;
#if KINDLING_HAVE_CUDA
  cudaRuntimeGetVersion(&p.runtime);
  cudaDriverGetVersion(&p.driver);  // 0 when no driver is installed
  const cudaError_t e = cudaGetDeviceCount(&p.count);
  if (e != cudaSuccess) {
    p.count = 0;
    cudaGetLastError();
    if (p.driver == 0)
      p.reason = "no NVIDIA driver is installed (libcuda.so.1 not found): CUDA needs the driver "
                 "of a machine with an NVIDIA GPU";
    else if (e == cudaErrorInsufficientDriver)
      p.reason = "the NVIDIA driver supports CUDA " + version_str(p.driver) + " but this build "
                 "uses CUDA " + version_str(p.runtime) + " (the toolkit is too new for the "
                 "driver): update the driver, or build with an older toolkit";
    else if (e == cudaErrorNoDevice)
      p.reason = "the NVIDIA driver is installed but sees no GPU (none in this machine or "
                 "container, or CUDA_VISIBLE_DEVICES hides them)";
    else
      p.reason = std::string("the CUDA runtime cannot start: ") + cudaGetErrorName(e) + ": " +
                 cudaGetErrorString(e);
  } else if (p.count == 0) {
    p.reason = "the NVIDIA driver is installed but reports 0 devices";
  }
#else
  p.reason = "this build has no CUDA: nvcc was not found when it was configured (the chapter's "
             "kernels still run on the CPU through the kernel emulator, kd::cuda::emulated)";
#endif
  return p;
}

const Probe& probe() {
  static const Probe p = probe_once();
  return p;
}

}  // namespace

const Backend* active_backend() {
  std::lock_guard lock(g_backend_mutex);
  return g_backend;
}

namespace {
void set_backend(const Backend* b) {
  {
    std::lock_guard lock(g_backend_mutex);
    if (g_backend == b) return;
    if (g_backend)
      throw DeviceError(std::string("cuda: the ") + g_backend->name + " device is already set up; "
                        "one process uses either the real GPU or the emulated device");
    g_backend = b;
  }
  install(b);
}
}  // namespace
}  // namespace detail

bool built_with_cuda() { return KINDLING_HAVE_CUDA; }
int device_count() { return detail::probe().count; }
int driver_version() { return detail::probe().driver; }
int runtime_version() { return detail::probe().runtime; }
std::string unavailable_reason() { return detail::probe().reason; }

bool is_available() {
#if KINDLING_HAVE_CUDA
  if (device_count() == 0) return false;
  if (detail::active_backend() != &detail::kCuda) detail::set_backend(&detail::kCuda);
  return true;
#else
  return false;
#endif
}

void use_emulated_device() { detail::set_backend(&detail::kEmulated); }
bool is_emulated() { return detail::active_backend() == &detail::kEmulated; }

DeviceProperties get_device_properties(int index) {
  if (is_emulated() && index == 0)
    return {"kernel emulator (host memory, correctness only)", 0, 0, 0, 0};
  if (index < 0 || index >= device_count())
    throw DeviceError("get_device_properties: there is no cuda:" + std::to_string(index) + " (" +
                      std::to_string(device_count()) + " device(s) visible" +
                      (device_count() == 0 ? ": " + unavailable_reason() : std::string()) + ")");
  DeviceProperties out;
#if KINDLING_HAVE_CUDA
  cudaDeviceProp prop{};
  detail::check(cudaGetDeviceProperties(&prop, index), "get_device_properties");
  out = {prop.name, prop.major, prop.minor, prop.totalGlobalMem, prop.multiProcessorCount};
#endif
  return out;
}

std::string get_device_name(int index) { return get_device_properties(index).name; }

void synchronize() {
#if KINDLING_HAVE_CUDA
  if (detail::active_backend() == &detail::kCuda)
    detail::check(cudaDeviceSynchronize(), "synchronize");
#endif
}

}  // namespace kindling::cuda
