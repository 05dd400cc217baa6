#include "kindling/tensor/device.hpp"

#include "kindling/tensor/error.hpp"

namespace kindling {

Device Device::parse(const std::string& name) {
  if (name == "cpu") return kCPU;
  if (name == "cuda") return Device{DeviceType::CUDA, 0};
  if (name.rfind("cuda:", 0) == 0) {
    try {
      std::size_t used = 0;
      int index = std::stoi(name.substr(5), &used);
      if (used == name.size() - 5 && index >= 0) return Device{DeviceType::CUDA, index};
    } catch (const std::exception&) {
    }
  }
  throw ValueError("Device: cannot parse \"" + name + "\". Expected \"cpu\", \"cuda\" or \"cuda:N\".");
}

std::string Device::str() const {
  return type == DeviceType::CPU ? "cpu" : "cuda:" + std::to_string(index);
}

}  // namespace kindling
