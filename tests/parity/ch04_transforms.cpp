// Chapter 4 parity: Kindling's image transforms vs torchvision 0.14 (see ch04_transforms.py).
#include <kindling/data.hpp>

#include "parity.hpp"

namespace F = kindling::data::transforms::functional;
namespace T = kindling::data::transforms;
using kindling::kFloat32;
using kindling::kUInt8;

// ---- layout and dtype ---------------------------------------------------------------------------
PARITY_CASE("to_tensor/uint8-hwc") { return T::ToTensor()(in["x"]); }
PARITY_CASE("to_tensor/uint8-hw") { return T::ToTensor()(in["x"]); }
PARITY_CASE("to_tensor/float-hwc") { return T::ToTensor()(in["x"]); }
PARITY_CASE("convert_image_dtype/uint8-float") { return T::ConvertImageDtype(kFloat32)(in["x"]); }
PARITY_CASE("convert_image_dtype/float-uint8") { return T::ConvertImageDtype(kUInt8)(in["x"]); }
PARITY_CASE("normalize/rgb") { return T::Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})(in["x"]); }
PARITY_CASE("normalize/batch-one-value") { return T::Normalize({0.5}, {0.25})(in["x"]); }
PARITY_CASE("normalize/float64") { return T::Normalize({0.1, 0.2}, {0.3, 0.4})(in["x"]); }

// ---- resize --------------------------------------------------------------------------------------
PARITY_CASE("resize/float-down") { return T::Resize({5, 7})(in["x"]); }
PARITY_CASE("resize/float-up") { return T::Resize({20, 17})(in["x"]); }
PARITY_CASE("resize/float-mixed") { return T::Resize({13, 4})(in["x"]); }
PARITY_CASE("resize/smaller-edge") { return T::Resize(10)(in["x"]); }
PARITY_CASE("resize/max-size") { return T::Resize(10, {.max_size = 12})(in["x"]); }
PARITY_CASE("resize/float64") { return T::Resize({6, 9})(in["x"]); }
PARITY_CASE("resize/batch") { return T::Resize({8, 8})(in["x"]); }
PARITY_CASE("resize/gray-1hw") { return T::Resize({28, 28})(in["x"]); }
PARITY_CASE("resize/uint8-down") { return T::Resize({11, 9})(in["x"]); }
PARITY_CASE("resize/uint8-up") { return T::Resize({32, 40})(in["x"]).to(kFloat32); }

// ---- crops, padding, flips -----------------------------------------------------------------------
PARITY_CASE("center_crop/odd-margin") { return T::CenterCrop(4, 6)(in["x"]); }
PARITY_CASE("center_crop/even-margin") { return T::CenterCrop(4, 4)(in["x"]); }
PARITY_CASE("center_crop/larger-than-image") { return T::CenterCrop(12, 13)(in["x"]); }
PARITY_CASE("center_crop/uint8") { return T::CenterCrop(5)(in["x"]); }
PARITY_CASE("crop/partly-outside") { return F::crop(in["x"], -2, 3, 6, 9); }
PARITY_CASE("pad/ltrb") { return F::pad(in["x"], 1, 2, 3, 4); }
PARITY_CASE("pad/fill-uint8") { return F::pad(in["x"], 2, 2, 2, 2, 7); }
PARITY_CASE("hflip/rgb") { return T::RandomHorizontalFlip(1.0)(in["x"]); }
PARITY_CASE("vflip/uint8") { return T::RandomVerticalFlip(1.0)(in["x"]); }

// ---- rotation ------------------------------------------------------------------------------------
PARITY_CASE("rotate/float-10.0") { return F::rotate(in["x"], 10.0); }
PARITY_CASE("rotate/float--7.5") { return F::rotate(in["x"], -7.5); }
PARITY_CASE("rotate/float-33.0") { return F::rotate(in["x"], 33.0); }
PARITY_CASE("rotate/float-90.0") { return F::rotate(in["x"], 90.0); }
PARITY_CASE("rotate/float-180.0") { return F::rotate(in["x"], 180.0); }
PARITY_CASE("rotate/uint8-odd-size") { return F::rotate(in["x"], 12.0); }
PARITY_CASE("rotate/batch") { return F::rotate(in["x"], -4.0); }

// ---- colour --------------------------------------------------------------------------------------
PARITY_CASE("adjust_brightness/float-up") { return F::adjust_brightness(in["x"], 1.3); }
PARITY_CASE("adjust_brightness/float-down") { return F::adjust_brightness(in["x"], 0.6); }
PARITY_CASE("adjust_brightness/uint8") { return F::adjust_brightness(in["x"], 1.3); }
PARITY_CASE("adjust_contrast/float-down") { return F::adjust_contrast(in["x"], 0.7); }
PARITY_CASE("adjust_contrast/float-up") { return F::adjust_contrast(in["x"], 1.4); }
PARITY_CASE("adjust_contrast/gray") { return F::adjust_contrast(in["x"], 0.5); }
PARITY_CASE("adjust_contrast/batch") { return F::adjust_contrast(in["x"], 1.2); }
PARITY_CASE("adjust_contrast/uint8") { return F::adjust_contrast(in["x"], 0.8); }
PARITY_CASE("rgb_to_grayscale/float") { return F::rgb_to_grayscale(in["x"]); }
PARITY_CASE("rgb_to_grayscale/uint8") { return F::rgb_to_grayscale(in["x"]); }
