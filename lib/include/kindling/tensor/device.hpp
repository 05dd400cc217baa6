#pragma once
/// @file
/// Where a tensor's memory lives. Only the CPU exists in this build.
#include <string>

namespace kindling {

enum class DeviceType { CPU, CUDA };

/// A device: its type and, for CUDA, the GPU's index ("cuda:0").
struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;

  /// Parses "cpu", "cuda", "cuda:1".
  static Device parse(const std::string& name);
  std::string str() const;
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  friend bool operator==(const Device&, const Device&) = default;
};

inline const Device kCPU{DeviceType::CPU, 0};

}  // namespace kindling
