// pin_memory() and is_pinned(): the tensor layer only forwards to the device layer that registered
// its hooks (chapter 8's cuda layer, when a device is set up); it cannot pin memory by itself.
#include "kindling/tensor/pinned.hpp"

#include <atomic>

#include "kindling/tensor/error.hpp"

namespace kindling {
namespace {
std::atomic<Tensor (*)(const Tensor&)> g_pin{nullptr};
std::atomic<bool (*)(const Tensor&)> g_is_pinned{nullptr};
}  // namespace

namespace detail {
void register_pinned_memory(PinnedMemory hooks) {
  g_pin.store(hooks.pin);
  g_is_pinned.store(hooks.is_pinned);
}
bool pinned_memory_available() { return g_pin.load() != nullptr; }
}  // namespace detail

Tensor pin_memory(const Tensor& t) {
  if (!t.device().is_cpu())
    throw DeviceError("pin_memory: only a CPU tensor can be pinned, this one is on " + t.device().str());
  auto* pin = g_pin.load();
  if (!pin)
    throw DeviceError("pin_memory: pinned memory needs a CUDA device, and none is set up. Hint: call "
                      "kd::cuda::is_available() first (or kd::cuda::use_emulated_device() without a GPU)");
  return pin(t);
}

bool is_pinned(const Tensor& t) {
  auto* f = g_is_pinned.load();
  return f && t.device().is_cpu() && f(t);
}

}  // namespace kindling
