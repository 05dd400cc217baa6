#pragma once
// Helpers for the image functions: view an image [..., H, W] as `planes` 2-D planes and dispatch
// on the three image dtypes. Internal to kindling_data.
#include <cstdint>
#include <string>
#include <utility>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::data::detail {

struct Planes {
  Tensor data;               // contiguous copy (or the image itself when already contiguous)
  std::int64_t planes = 1;   // product of the leading dimensions
  std::int64_t h = 0, w = 0;
  Shape lead;                // the leading dimensions
};

inline Planes as_planes(const Tensor& image, const char* op) {
  if (!image.defined()) throw ValueError(std::string(op) + ": the image is an undefined tensor");
  if (image.dim() < 2) {
    throw ShapeError(std::string(op) + ": expected an image [..., H, W] with at least 2 dimensions, got " +
                     shape_str(image.shape()));
  }
  if (image.device() != kCPU) throw DeviceError(std::string(op) + ": image transforms run on the CPU");
  Planes p;
  p.data = image.contiguous();
  p.h = image.size(-2);
  p.w = image.size(-1);
  p.lead.assign(image.shape().begin(), image.shape().end() - 2);
  p.planes = numel_of(p.lead);
  return p;
}

inline Tensor new_image(const Shape& lead, std::int64_t h, std::int64_t w, DType dtype) {
  Shape s = lead;
  s.push_back(h);
  s.push_back(w);
  return empty(s, {.dtype = dtype});
}

/// Calls f(T{}) with T = uint8_t, float or double.
template <class F>
decltype(auto) dispatch_image(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case kUInt8: return f(std::uint8_t{});
    case kFloat32: return f(float{});
    case kFloat64: return f(double{});
    default:
      throw DTypeError(std::string(op) + ": images must be uint8, float32 or float64, got " + dtype_name(dtype) +
                       ". Hint: convert with .to(kd::kFloat32) or kd::data::transforms::ConvertImageDtype.");
  }
}

/// float for uint8/float32 images, double for float64 — the precision torchvision computes in.
template <class T> using compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

}  // namespace kindling::data::detail
