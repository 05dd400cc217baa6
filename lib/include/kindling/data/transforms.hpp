#pragma once
/// @file
/// torchvision.transforms in C++: callable objects `Tensor(const Tensor&)` chained with Compose.
///
///     namespace T = kd::data::transforms;
///     auto augment = T::Compose({T::ToTensor(), T::RandomHorizontalFlip(0.5), T::RandomRotation(10),
///                                T::ColorJitter({.brightness = 0.2, .contrast = 0.2}),
///                                T::Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})});
///
/// Images follow torchvision's tensor layout [..., C, H, W] (uint8 or float); put ToTensor (or
/// PILToTensor) first to turn an HWC image from a file into CHW. Random transforms draw from
/// kd::data::current_generator(): inside a DataLoader that is a per-sample generator, so augmented
/// batches are reproducible from the loader's seed with any number of workers.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "kindling/data/transforms_functional.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::data::transforms {

/// Any image → image function. Every class below converts to it.
using Transform = std::function<Tensor(const Tensor&)>;

/// Applies transforms in order.
class Compose {
 public:
  Compose(std::initializer_list<Transform> transforms) : transforms_(transforms) {}
  explicit Compose(std::vector<Transform> transforms) : transforms_(std::move(transforms)) {}
  Tensor operator()(const Tensor& image) const;

 private:
  std::vector<Transform> transforms_;
};

/// HWC uint8 image → CHW float32 in [0, 1]; [H, W] → [1, H, W] (torchvision.transforms.ToTensor).
struct ToTensor {
  Tensor operator()(const Tensor& image) const { return functional::to_tensor(image); }
};

/// HWC image → CHW, same dtype and values (torchvision.transforms.PILToTensor).
struct PILToTensor {
  Tensor operator()(const Tensor& image) const { return functional::pil_to_tensor(image); }
};

/// uint8 ↔ float conversion with rescaling (torchvision.transforms.ConvertImageDtype).
class ConvertImageDtype {
 public:
  explicit ConvertImageDtype(DType dtype) : dtype_(dtype) {}
  Tensor operator()(const Tensor& image) const { return functional::convert_image_dtype(image, dtype_); }

 private:
  DType dtype_;
};

/// (x - mean) / std per channel of a float [..., C, H, W] image.
class Normalize {
 public:
  Normalize(std::vector<double> mean, std::vector<double> std) : mean_(std::move(mean)), std_(std::move(std)) {}
  Tensor operator()(const Tensor& image) const { return functional::normalize(image, mean_, std_); }

 private:
  std::vector<double> mean_, std_;
};

/// Options of Resize(size).
struct ResizeOptions {
  /// Cap on the longer edge (0 = none), like torchvision's max_size.
  std::int64_t max_size = 0;
};

/// Bilinear resize (antialias=False). Resize({h, w}) gives exactly h × w; Resize(size) scales the
/// smaller edge to `size` and keeps the aspect ratio (the longer edge capped at .max_size if > 0).
class Resize {
 public:
  Resize(std::int64_t size, ResizeOptions options = {});
  Resize(std::vector<std::int64_t> size);
  Tensor operator()(const Tensor& image) const;

 private:
  std::vector<std::int64_t> size_;
  std::int64_t max_size_ = 0;
};

/// Crops the centre (padding with 0 if the image is smaller). CenterCrop(s) crops s × s.
class CenterCrop {
 public:
  CenterCrop(std::int64_t size) : h_(size), w_(size) {}
  CenterCrop(std::int64_t height, std::int64_t width) : h_(height), w_(width) {}
  Tensor operator()(const Tensor& image) const { return functional::center_crop(image, h_, w_); }

 private:
  std::int64_t h_, w_;
};

/// Options of RandomCrop.
struct RandomCropOptions {
  std::int64_t padding = 0;     ///< pixels of `fill` added on every side before cropping
  bool pad_if_needed = false;   ///< pad images smaller than the crop instead of failing
  double fill = 0;
};

/// A crop at a random position (after optional padding), like torchvision.transforms.RandomCrop.
class RandomCrop {
 public:
  RandomCrop(std::int64_t size, RandomCropOptions options = {}) : RandomCrop(size, size, options) {}
  RandomCrop(std::int64_t height, std::int64_t width, RandomCropOptions options = {});
  Tensor operator()(const Tensor& image) const;

 private:
  std::int64_t h_, w_;
  RandomCropOptions options_;
};

/// Mirrors left ↔ right with probability p. Wrong for text (OCR): a flipped "b" is a "d".
class RandomHorizontalFlip {
 public:
  explicit RandomHorizontalFlip(double p = 0.5);
  Tensor operator()(const Tensor& image) const;

 private:
  double p_;
};

/// Mirrors top ↔ bottom with probability p.
class RandomVerticalFlip {
 public:
  explicit RandomVerticalFlip(double p = 0.5);
  Tensor operator()(const Tensor& image) const;

 private:
  double p_;
};

/// Rotates by an angle uniform in [-degrees, degrees] (or [min, max]); nearest sampling, fill 0.
/// Keep it small (≤ 10°) for natural images.
class RandomRotation {
 public:
  explicit RandomRotation(double degrees, double fill = 0);
  RandomRotation(double min_degrees, double max_degrees, double fill);
  Tensor operator()(const Tensor& image) const;

 private:
  double lo_, hi_, fill_;
};

/// Options of ColorJitter: each factor is drawn uniform in [max(0, 1 - x), 1 + x]; 0 disables it.
struct ColorJitterOptions {
  double brightness = 0;
  double contrast = 0;
};

/// Random brightness and contrast changes, applied in random order (torchvision semantics).
class ColorJitter {
 public:
  explicit ColorJitter(ColorJitterOptions options);
  ColorJitter(double brightness, double contrast = 0) : ColorJitter(ColorJitterOptions{brightness, contrast}) {}
  Tensor operator()(const Tensor& image) const;

 private:
  ColorJitterOptions options_;
};

/// Wraps any function as a transform (torchvision.transforms.Lambda).
class Lambda {
 public:
  explicit Lambda(Transform fn) : fn_(std::move(fn)) {}
  Tensor operator()(const Tensor& image) const { return fn_(image); }

 private:
  Transform fn_;
};

}  // namespace kindling::data::transforms
