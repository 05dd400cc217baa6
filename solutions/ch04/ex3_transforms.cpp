// ch04.ex3 — image transforms: ToTensor, Normalize and the horizontal flip.
//
// kindling::data::transforms::functional::to_tensor, normalize and hflip
// (kindling/data/transforms_functional.hpp): the ToTensor, Normalize and RandomHorizontalFlip transforms
// of every Fashion-MNIST pipeline call them. The layout conventions are torchvision's (see that header).
#include <string>

#include "data/image_common.hpp"
#include "kindling/data/transforms_functional.hpp"

namespace kindling::data::transforms::functional {
using detail::as_planes;
using detail::dispatch_image;
using detail::new_image;

// BEGIN SOLUTION ex3: a helper: HWC (or HW) -> CHW
namespace {
// HWC → CHW (a copy, so later steps see contiguous memory), keeping the dtype.
Tensor hwc_to_chw(const Tensor& image, const char* op) {
  if (!image.defined() || (image.dim() != 2 && image.dim() != 3)) {
    throw ShapeError(std::string(op) + ": expected an HWC image [H, W, C] or a grayscale [H, W], got " +
                     (image.defined() ? shape_str(image.shape()) : std::string("an undefined tensor")) +
                     ". Hint: images already in CHW layout need no " + op + ".");
  }
  if (image.dim() == 2) return image.unsqueeze(0).contiguous();  // [H, W] → [1, H, W]
  return image.permute({2, 0, 1}).contiguous();
}
}  // namespace
// STUB
// END SOLUTION

Tensor to_tensor(const Tensor& image) {
  // BEGIN SOLUTION ex3: HWC -> CHW, uint8 0..255 -> float32 in [0, 1]
  Tensor chw = hwc_to_chw(image, "ToTensor");
  if (chw.dtype() != kUInt8) return chw;
  Tensor out = empty(chw.shape(), {.dtype = kFloat32});
  const auto* s = chw.data_ptr<std::uint8_t>();
  float* d = out.data_ptr<float>();
  const std::int64_t n = chw.numel();
  for (std::int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(s[i]) / 255.0f;
  return out;
  // END SOLUTION
}

Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& std) {
  // BEGIN SOLUTION ex3: check the shape, dtype and the number of values, then (x - mean[c]) / std[c]
  if (!image.defined() || image.dim() < 3) {
    throw ShapeError("Normalize: expected a tensor image [..., C, H, W], got " +
                     (image.defined() ? shape_str(image.shape()) : std::string("an undefined tensor")) +
                     ". Hint: apply ToTensor first (it turns [H, W] into [1, H, W]).");
  }
  if (!image.is_floating_point()) {
    throw DTypeError(std::string("Normalize: expected a float image, got ") + dtype_name(image.dtype()) +
                     ". Hint: apply ToTensor (or ConvertImageDtype(kFloat32)) before Normalize.");
  }
  const std::int64_t c = image.size(-3);
  auto check = [&](const std::vector<double>& v, const char* name) {
    if (v.size() != 1 && static_cast<std::int64_t>(v.size()) != c) {
      throw ValueError(std::string("Normalize: ") + name + " has " + std::to_string(v.size()) +
                       " values but the image " + shape_str(image.shape()) + " has " + std::to_string(c) +
                       " channels (give one value per channel, or one for all)");
    }
  };
  check(mean, "mean");
  check(std, "std");
  for (double s : std)
    if (s == 0) throw ValueError("Normalize: std evaluated to zero, leading to division by zero.");
  auto p = as_planes(image, "Normalize");
  Tensor out = empty(image.shape(), {.dtype = image.dtype()});
  dispatch_image(image.dtype(), "Normalize", [&](auto tag) {
    using T = decltype(tag);
    const T* s = p.data.template data_ptr<T>();
    T* d = out.template data_ptr<T>();
    const std::int64_t hw = p.h * p.w;
    for (std::int64_t n = 0; n < p.planes; ++n) {  // plane n is channel n % C
      const std::size_t ch = static_cast<std::size_t>(n % c);
      const T m = static_cast<T>(mean.size() == 1 ? mean[0] : mean[ch]);
      const T sd = static_cast<T>(std.size() == 1 ? std[0] : std[ch]);
      for (std::int64_t i = n * hw; i < (n + 1) * hw; ++i) d[i] = (s[i] - m) / sd;  // sub_ then div_
    }
  });
  return out;
  // END SOLUTION
}

Tensor hflip(const Tensor& image) {
  // BEGIN SOLUTION ex3: reverse the last dimension, into a new image
  auto p = as_planes(image, "hflip");
  Tensor out = new_image(p.lead, p.h, p.w, image.dtype());
  dispatch_image(image.dtype(), "hflip", [&](auto tag) {
    using T = decltype(tag);
    const T* s = p.data.template data_ptr<T>();
    T* d = out.template data_ptr<T>();
    for (std::int64_t r = 0; r < p.planes * p.h; ++r)
      for (std::int64_t x = 0; x < p.w; ++x) d[r * p.w + x] = s[r * p.w + (p.w - 1 - x)];
  });
  return out;
  // END SOLUTION
}

}  // namespace kindling::data::transforms::functional
