#pragma once
// Chapter 1's programs record the memory layout of their views as JSON lines, from
// which the book draws its pictures (figures/layouts.py): shape, strides, offset, the
// storage position each element reads, the values read and the storage's values.
#include <kindling/tensor.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace kd = kindling;

// The storage position of every element of t, in row-major order:
// position = offset + sum over d of index[d] * stride[d].
inline std::vector<std::int64_t> positions(const kd::Tensor& t) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    std::int64_t rest = i, pos = t.storage_offset();
    for (std::int64_t d = t.dim() - 1; d >= 0; --d) {  // unravel i into an index
      pos += (rest % t.size(d)) * t.stride(d);
      rest /= t.size(d);
    }
    out.push_back(pos);
  }
  return out;
}

// The values of an int64 tensor in row-major order.
inline std::vector<std::int64_t> values(const kd::Tensor& t) {
  std::vector<std::int64_t> out;
  const kd::Tensor flat = t.flatten();
  for (std::int64_t i = 0; i < t.numel(); ++i)
    out.push_back(flat[i].item<std::int64_t>());
  return out;
}

template <class Ints>  // a shape, strides, positions or values
std::string json_list(const Ints& v) {
  std::string s = "[";
  for (auto i : v) s += (s.size() > 1 ? ", " : "") + std::to_string(i);
  return s + "]";
}

// One JSON line: {"name", "shape", "strides", "offset", "positions", "values",
// "storage"}.
inline void write_layout(std::ofstream& log, const std::string& name,
                         const kd::Tensor& t) {
  const auto* data = static_cast<const std::int64_t*>(t.storage()->data());
  const std::vector<std::int64_t> storage(data, data + t.storage()->nbytes() / 8);
  log << "{\"name\": \"" << name << "\", \"shape\": " << json_list(t.shape())
      << ", \"strides\": " << json_list(t.strides())
      << ", \"offset\": " << t.storage_offset()
      << ", \"positions\": " << json_list(positions(t))
      << ", \"values\": " << json_list(values(t))
      << ", \"storage\": " << json_list(storage) << "}\n";
}
