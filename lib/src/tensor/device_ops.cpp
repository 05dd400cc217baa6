// The device dispatch table (device_ops.hpp): one entry per device type, filled by a device layer.
#include "tensor/device_ops.hpp"

#include <array>

namespace kindling::detail {
namespace {
std::array<DeviceOps, 2>& table() {
  static std::array<DeviceOps, 2> ops;  // indexed by DeviceType: CPU (never used), CUDA
  return ops;
}
}  // namespace

void register_device_ops(DeviceType type, DeviceOps ops) { table()[static_cast<int>(type)] = ops; }

const DeviceOps* device_ops(const Tensor& t) {
  if (!t.defined() || t.device().is_cpu()) return nullptr;
  return &table()[static_cast<int>(t.device().type)];
}

}  // namespace kindling::detail
