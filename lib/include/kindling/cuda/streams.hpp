#pragma once
/// @file
/// Streams, events and asynchronous copies: torch.cuda.Stream, torch.cuda.Event and
/// `tensor.to(device, non_blocking=True)`.
///
/// A GPU runs the work of one stream in order, and the work of different streams in any order --
/// a copy on one stream can overlap a kernel on another. An event marks a point in a stream: another
/// stream can wait for it, the host can wait for it, and two timed events measure the GPU time
/// between them. A copy from pinned host memory (kindling/tensor/pinned.hpp) to the device returns
/// at once and finishes later on its stream; from ordinary (pageable) memory it is synchronous, as
/// in PyTorch.
///
/// **On the emulated device all of it is honestly synchronous**: there is no GPU working beside
/// the CPU, so every copy is done when the call returns, query() is always true, synchronize()
/// has nothing to wait for, and elapsed_time() measures host time between the two record() calls.
/// The same code runs on a real device, where the CUDA runtime does the work.
#include <cstdint>
#include <memory>

#include "kindling/tensor/pinned.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::cuda {

/// A queue of device work (torch.cuda.Stream). Copies of a Stream are the same stream.
class Stream {
 public:
  /// A new stream on cuda:0. Throws a DeviceError when no device is set up.
  Stream();
  /// The default stream (the one kernels and copies use unless told otherwise).
  static Stream default_stream();
  /// Waits until the stream's work is done (torch.cuda.Stream.synchronize).
  void synchronize() const;
  /// True when the stream's work is done (torch.cuda.Stream.query).
  bool query() const;
  /// The cudaStream_t (nullptr for the default stream and on the emulated device).
  void* native_handle() const;
  bool operator==(const Stream& other) const { return impl_ == other.impl_; }

  struct Impl;

 private:
  explicit Stream(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
  friend class Event;
  friend Tensor to_device_async(const Tensor&, Device, const Stream&);
};

/// A point in a stream's work (torch.cuda.Event).
class Event {
 public:
  /// enable_timing: the event can measure elapsed_time() (it costs a little on a GPU).
  explicit Event(bool enable_timing = false);
  /// Marks the point reached by `stream`'s work so far (torch.cuda.Event.record).
  void record(const Stream& stream = Stream::default_stream());
  /// Waits until the recorded work is done.
  void synchronize() const;
  /// True when the recorded work is done (or nothing was recorded).
  bool query() const;
  /// Makes `stream`'s later work wait for this event (torch.cuda.Event.wait).
  void wait(const Stream& stream) const;
  /// Milliseconds between this event and `end`, both recorded and done. Needs enable_timing on both.
  double elapsed_time(const Event& end) const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

/// `src.to(device, non_blocking=True)` on `stream`: a CPU tensor copied to `device`. From pinned
/// memory on a GPU the copy is queued and the call returns at once; the result may be read by work
/// on `stream` (or after stream.synchronize()), and the stream keeps `src` alive until then. From
/// pageable memory, or on the emulated device, the copy is done when the call returns.
Tensor to_device_async(const Tensor& src, Device device, const Stream& stream);

}  // namespace kindling::cuda
