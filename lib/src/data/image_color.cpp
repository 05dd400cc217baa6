// Pixel-value transforms: HWC → CHW conversion, dtype conversion, Normalize, brightness,
// contrast, grayscale — torchvision 0.14's formulas, in the same float precision.
#include <algorithm>
#include <cstring>
#include <string>

#include "data/image_common.hpp"
#include "kindling/data/transforms_functional.hpp"

namespace kindling::data::transforms::functional {
using detail::as_planes;
using detail::compute_t;
using detail::dispatch_image;

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

// torchvision's _blend: ratio * a + (1 - ratio) * b, clamped to [0, 1] or [0, 255], cast back.
template <class T>
T blend(compute_t<T> ratio, compute_t<T> one_minus_ratio, T a, compute_t<T> b) {
  using C = compute_t<T>;
  const C bound = std::is_same_v<T, std::uint8_t> ? C(255) : C(1);
  C v = ratio * static_cast<C>(a) + one_minus_ratio * b;
  v = std::clamp(v, C(0), bound);
  return static_cast<T>(v);  // uint8: truncation, as Tensor.to(torch.uint8)
}
}  // namespace

// to_tensor and normalize are chapter 4's exercise 3 (data/pieces.hpp): in the answer file.

Tensor pil_to_tensor(const Tensor& image) { return hwc_to_chw(image, "PILToTensor"); }

Tensor convert_image_dtype(const Tensor& image, DType dtype) {
  if (image.dtype() == dtype) return image;
  if (image.dtype() == kUInt8 && is_floating_point(dtype)) {
    Tensor out = image.to(dtype);
    out.div_(255);
    return out;
  }
  if (image.is_floating_point() && dtype == kUInt8) {
    Tensor src = image.contiguous();
    Tensor out = empty(image.shape(), {.dtype = kUInt8});
    auto* d = out.data_ptr<std::uint8_t>();
    dispatch_image(image.dtype(), "ConvertImageDtype", [&](auto tag) {
      using T = decltype(tag);
      const T* s = src.template data_ptr<T>();
      const T scale = static_cast<T>(255.0 + 1.0 - 1e-3);  // torchvision: 255 + 1 - eps
      for (std::int64_t i = 0; i < image.numel(); ++i) d[i] = static_cast<std::uint8_t>(s[i] * scale);
    });
    return out;
  }
  if (image.is_floating_point() && is_floating_point(dtype)) return image.to(dtype);
  throw DTypeError(std::string("ConvertImageDtype: cannot convert a ") + dtype_name(image.dtype()) +
                   " image to " + dtype_name(dtype) + " (images are uint8, float32 or float64)");
}


Tensor adjust_brightness(const Tensor& image, double factor) {
  if (factor < 0) throw ValueError("adjust_brightness: brightness_factor (" + std::to_string(factor) + ") is not non-negative.");
  auto p = as_planes(image, "adjust_brightness");
  Tensor out = empty(image.shape(), {.dtype = image.dtype()});
  dispatch_image(image.dtype(), "adjust_brightness", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* s = p.data.template data_ptr<T>();
    T* d = out.template data_ptr<T>();
    const C r = static_cast<C>(factor), q = static_cast<C>(1.0 - factor);
    for (std::int64_t i = 0; i < image.numel(); ++i) d[i] = blend<T>(r, q, s[i], C(0));  // blend with black
  });
  return out;
}

Tensor rgb_to_grayscale(const Tensor& image) {
  if (!image.defined() || image.dim() < 3 || (image.size(-3) != 1 && image.size(-3) != 3)) {
    throw ShapeError("rgb_to_grayscale: expected an image [..., C, H, W] with 1 or 3 channels, got " +
                     (image.defined() ? shape_str(image.shape()) : std::string("an undefined tensor")));
  }
  if (image.size(-3) == 1) return image.clone();
  auto p = as_planes(image, "rgb_to_grayscale");
  Shape lead = p.lead;
  lead.back() = 1;
  Tensor out = detail::new_image(lead, p.h, p.w, image.dtype());
  dispatch_image(image.dtype(), "rgb_to_grayscale", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* s = p.data.template data_ptr<T>();
    T* d = out.template data_ptr<T>();
    const std::int64_t hw = p.h * p.w;
    for (std::int64_t b = 0; b < p.planes / 3; ++b) {
      const T *r = s + (3 * b) * hw, *g = r + hw, *bl = g + hw;
      for (std::int64_t i = 0; i < hw; ++i) {
        const C l = C(0.2989) * static_cast<C>(r[i]) + C(0.587) * static_cast<C>(g[i]) + C(0.114) * static_cast<C>(bl[i]);
        d[b * hw + i] = static_cast<T>(l);  // .to(img.dtype): truncation for uint8
      }
    }
  });
  return out;
}

Tensor adjust_contrast(const Tensor& image, double factor) {
  if (factor < 0) throw ValueError("adjust_contrast: contrast_factor (" + std::to_string(factor) + ") is not non-negative.");
  if (!image.defined() || image.dim() < 2) {
    throw ShapeError("adjust_contrast: expected an image [..., C, H, W], got " +
                     (image.defined() ? shape_str(image.shape()) : std::string("an undefined tensor")));
  }
  // One mean per image: over (C, H, W) of the grayscale version ([H, W] images: over (H, W)).
  Tensor gray = image.dim() == 2 ? image.contiguous() : rgb_to_grayscale(image).contiguous();
  auto p = as_planes(image, "adjust_contrast");
  const std::int64_t per_image = image.dim() == 2 ? image.numel() : image.size(-3) * p.h * p.w;
  const std::int64_t gray_per_image = p.h * p.w;
  const std::int64_t images = image.numel() / std::max<std::int64_t>(per_image, 1);
  Tensor out = empty(image.shape(), {.dtype = image.dtype()});
  dispatch_image(image.dtype(), "adjust_contrast", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* s = p.data.template data_ptr<T>();
    const T* g = gray.template data_ptr<T>();
    T* d = out.template data_ptr<T>();
    const C r = static_cast<C>(factor), q = static_cast<C>(1.0 - factor);
    for (std::int64_t k = 0; k < images; ++k) {
      double sum = 0;  // torch.mean in float; summed in double here (see the tolerance note)
      for (std::int64_t i = 0; i < gray_per_image; ++i) sum += static_cast<double>(static_cast<C>(g[k * gray_per_image + i]));
      const C mean = static_cast<C>(sum / static_cast<double>(gray_per_image));
      for (std::int64_t i = k * per_image; i < (k + 1) * per_image; ++i) d[i] = blend<T>(r, q, s[i], mean);
    }
  });
  return out;
}

}  // namespace kindling::data::transforms::functional
