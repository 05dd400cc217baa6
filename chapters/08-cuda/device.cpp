// Chapter 8 — the device: is there a GPU, and if not, why not; moving a model and a
// batch to it; and the error when one of them stays behind. Without a GPU the program
// uses the emulated cuda:0 (host memory), so that the same lines run and fail the same
// way.
#include <kindling/kindling.hpp>
#include <kindling/cuda.hpp>

#include <cstdio>

namespace kd = kindling;

int main() {
  // [snippet: pick-device]
  kd::Device device = kd::kCPU;
  if (kd::cuda::is_available()) device = kd::Device::parse("cuda");
  // [end]
  if (device.is_cuda()) {
    std::printf("GPU: %s\n", kd::cuda::get_device_name(0).c_str());
  } else {
    std::printf("no GPU: %s\n", kd::cuda::unavailable_reason().c_str());
    kd::cuda::use_emulated_device();
    device = kd::Device::parse("cuda");
    std::printf("using the emulated cuda:0 (host memory: correctness, not speed)\n");
  }

  // [snippet: move]
  kd::nn::Linear fc(784, 10);
  fc.to(device);                             // the parameters now live on the device
  kd::Tensor images = kd::randn({32, 784});  // a batch, still on the CPU
  try {
    kd::Tensor out = fc(images);  // the model and the batch disagree
  } catch (const kd::DeviceError& e) {
    std::printf("%s\n", e.what());
  }
  kd::Tensor on_device = images.to(device);  // the fix: move every batch
  std::printf("batch on %s, weight on %s\n", on_device.device().str().c_str(),
              fc.weight.device().str().c_str());
  // [end]

  // [snippet: strided-back]
  kd::Tensor t = kd::arange(12).reshape({3, 4}).to(device);
  // A transposed view comes back with one copy of the memory it spans, then a gather.
  kd::Tensor back = t.t().cpu();
  std::printf("t.t() back on the CPU: %s\n", back.to_string().c_str());
  // [end]
  std::printf("device memory: %zu bytes allocated, %zu reserved by the cache\n",
              kd::cuda::memory_allocated(), kd::cuda::memory_reserved());
}
