// Streams, events and the asynchronous copy to the device (kindling/cuda/streams.hpp). On a GPU
// each is the CUDA runtime's (cudaStream_t, cudaEvent_t, cudaMemcpyAsync); on the emulated device
// every operation is finished when it returns, which the API says rather than pretends otherwise.
#include "kindling/cuda/streams.hpp"

#include <chrono>
#include <cstring>
#include <mutex>
#include <vector>

#include "cuda/backend.hpp"
#include "kindling/cuda/runtime.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/version.hpp"
#include "tensor/internal.hpp"

#if KINDLING_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace kindling::cuda {
namespace {

// True on a real GPU, false on the emulated device; throws when no device is set up.
bool real_device(const char* what) {
  const detail::Backend* b = detail::active_backend();
  if (!b)
    throw DeviceError(std::string(what) + ": no CUDA device is set up (" + unavailable_reason() +
                      "). Hint: call kd::cuda::is_available() first, or kd::cuda::use_emulated_device() "
                      "on a machine without a GPU");
  return !is_emulated();
}

#if KINDLING_HAVE_CUDA
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw DeviceError(std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
#endif

using Clock = std::chrono::steady_clock;

}  // namespace

struct Stream::Impl {
  void* handle = nullptr;   // cudaStream_t; null: the default stream, or the emulated device
  bool owned = false;
  bool real = false;
  std::mutex mutex;
  std::vector<Tensor> in_flight;  // sources of queued copies, kept alive until the stream is done

  ~Impl() {
#if KINDLING_HAVE_CUDA
    if (owned && handle) {
      cudaStreamSynchronize(static_cast<cudaStream_t>(handle));  // the sources die with us
      cudaStreamDestroy(static_cast<cudaStream_t>(handle));
    }
#endif
  }
  void done() {
    std::lock_guard lock(mutex);
    in_flight.clear();
  }
};

Stream::Stream() : impl_(std::make_shared<Impl>()) {
  impl_->real = real_device("Stream");
#if KINDLING_HAVE_CUDA
  if (impl_->real) {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "Stream: cudaStreamCreate");
    impl_->handle = s;
    impl_->owned = true;
  }
#endif
}

Stream Stream::default_stream() {
  auto impl = std::make_shared<Impl>();
  impl->real = real_device("Stream::default_stream");
  return Stream(std::move(impl));
}

void Stream::synchronize() const {
#if KINDLING_HAVE_CUDA
  if (impl_->real) check(cudaStreamSynchronize(static_cast<cudaStream_t>(impl_->handle)), "Stream::synchronize");
#endif
  impl_->done();
}

bool Stream::query() const {
#if KINDLING_HAVE_CUDA
  if (impl_->real) {
    const cudaError_t e = cudaStreamQuery(static_cast<cudaStream_t>(impl_->handle));
    if (e == cudaErrorNotReady) return false;
    check(e, "Stream::query");
  }
#endif
  impl_->done();
  return true;
}

void* Stream::native_handle() const { return impl_->handle; }

struct Event::Impl {
  bool timing = false;
  bool real = false;
  bool recorded = false;
  void* event = nullptr;       // cudaEvent_t
  Clock::time_point when{};    // the emulated device: when record() was called
  ~Impl() {
#if KINDLING_HAVE_CUDA
    if (event) cudaEventDestroy(static_cast<cudaEvent_t>(event));
#endif
  }
};

Event::Event(bool enable_timing) : impl_(std::make_shared<Impl>()) {
  impl_->timing = enable_timing;
  impl_->real = real_device("Event");
#if KINDLING_HAVE_CUDA
  if (impl_->real) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, enable_timing ? cudaEventDefault : cudaEventDisableTiming),
          "Event: cudaEventCreate");
    impl_->event = e;
  }
#endif
}

void Event::record(const Stream& stream) {
#if KINDLING_HAVE_CUDA
  if (impl_->real)
    check(cudaEventRecord(static_cast<cudaEvent_t>(impl_->event),
                          static_cast<cudaStream_t>(stream.native_handle())),
          "Event::record");
#else
  (void)stream;
#endif
  impl_->when = Clock::now();
  impl_->recorded = true;
}

void Event::synchronize() const {
#if KINDLING_HAVE_CUDA
  if (impl_->real && impl_->recorded)
    check(cudaEventSynchronize(static_cast<cudaEvent_t>(impl_->event)), "Event::synchronize");
#endif
}

bool Event::query() const {
#if KINDLING_HAVE_CUDA
  if (impl_->real && impl_->recorded) {
    const cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(impl_->event));
    if (e == cudaErrorNotReady) return false;
    check(e, "Event::query");
  }
#endif
  return true;
}

void Event::wait(const Stream& stream) const {
#if KINDLING_HAVE_CUDA
  if (impl_->real && impl_->recorded)
    check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream.native_handle()),
                              static_cast<cudaEvent_t>(impl_->event), 0),
          "Event::wait");
#else
  (void)stream;
#endif
}

double Event::elapsed_time(const Event& end) const {
  if (!impl_->timing || !end.impl_->timing)
    throw ValueError("Event::elapsed_time: both events need enable_timing=true (Event(true))");
  if (!impl_->recorded || !end.impl_->recorded)
    throw ValueError("Event::elapsed_time: both events must be recorded first");
#if KINDLING_HAVE_CUDA
  if (impl_->real) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(impl_->event),
                               static_cast<cudaEvent_t>(end.impl_->event)),
          "Event::elapsed_time");
    return ms;
  }
#endif
  return std::chrono::duration<double, std::milli>(end.impl_->when - impl_->when).count();
}

Tensor to_device_async(const Tensor& src, Device device, const Stream& stream) {
  if (!src.device().is_cpu())
    throw DeviceError("to_device_async: the source must be a CPU tensor, this one is on " +
                      src.device().str());
  if (!device.is_cuda())
    throw DeviceError("to_device_async: the target must be a CUDA device, not " + device.str());
  const bool real = real_device("to_device_async");
  if (!real || !is_pinned(src)) return src.to(device);  // synchronous, as from pageable memory
#if KINDLING_HAVE_CUDA
  const Tensor c = src.contiguous();  // pinned tensors are contiguous; a view of one may not be
  if (!is_pinned(c)) return src.to(device);
  Tensor out = kindling::detail::make_tensor(c.shape(), c.dtype(), device);
  if (c.nbytes())
    check(cudaMemcpyAsync(out.raw_data_ptr(), c.raw_data_ptr(), c.nbytes(), cudaMemcpyHostToDevice,
                          static_cast<cudaStream_t>(stream.native_handle())),
          "to_device_async: cudaMemcpyAsync");
  std::lock_guard lock(stream.impl_->mutex);
  stream.impl_->in_flight.push_back(c);  // the pinned source lives until the copy is done
  return out;
#else
  (void)stream;
  return src.to(device);
#endif
}

}  // namespace kindling::cuda
