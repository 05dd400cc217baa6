// Chapter 8 — pinned memory, a stream, two timed events and an asynchronous copy: the
// pattern that lets the GPU copy the next batch while it computes on this one. The
// DataLoader hands out pinned batches with pin_memory = true; to_device_async queues
// each copy on a side stream. Without a GPU the program uses the emulated cuda:0,
// where every step is synchronous (and says so).
#include <kindling/cuda.hpp>
#include <kindling/data.hpp>
#include <kindling/kindling.hpp>

#include <cstdio>

namespace kd = kindling;
namespace kc = kindling::cuda;

int main() {
  if (!kc::is_available()) {
    std::printf("no GPU: the emulated cuda:0, where copies finish before returning\n");
    kc::use_emulated_device();
  }
  const kd::Device device = kd::Device::parse("cuda");
  kd::manual_seed(0);

  // [snippet: pinned-loader]
  kd::data::TensorDataset data(kd::randn({256, 784}), kd::randint(0, 10, {256}));
  kd::data::DataLoader loader(
      data, {.batch_size = 64, .num_workers = 2, .pin_memory = true});
  kc::Stream copies;                  // a side stream for the copies
  kc::Event start(true), stop(true);  // timed events
  start.record(copies);
  int batches = 0;
  for (auto& batch : loader) {
    // Pinned memory: the copy is queued on `copies` and returns at once (on a GPU).
    kd::Tensor x = kc::to_device_async(batch.data, device, copies);
    kd::Tensor y = kc::to_device_async(batch.target, device, copies);
    copies.synchronize();  // before the host uses them (work on `copies` need not)
    std::printf("batch %d: %s on %s, pinned on the host: %s\n", batches++,
                kd::shape_str(x.shape()).c_str(), x.device().str().c_str(),
                kd::is_pinned(batch.data) ? "yes" : "no");
  }
  stop.record(copies);
  stop.synchronize();
  // [end]
  std::printf("%d batches copied; the events measured %s\n", batches,
              kc::is_emulated() ? "host time (the emulated device has no GPU clock)"
                                : "GPU time");
  (void)start.elapsed_time(stop);  // milliseconds; not printed: it changes every run
}
