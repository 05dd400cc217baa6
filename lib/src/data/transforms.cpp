// The transform classes: draw random parameters (from current_generator()), then call the
// functional forms in image_geometry.cpp / image_color.cpp.
#include "kindling/data/transforms.hpp"

#include <string>

#include "kindling/data/worker.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data::transforms {
namespace F = functional;

Tensor Compose::operator()(const Tensor& image) const {
  Tensor x = image;
  for (const auto& t : transforms_) x = t(x);
  return x;
}

Resize::Resize(std::int64_t size, ResizeOptions options) : size_{size}, max_size_(options.max_size) {
  if (size <= 0) throw ValueError("Resize: size must be positive, got " + std::to_string(size));
}

Resize::Resize(std::vector<std::int64_t> size) : size_(std::move(size)) {
  if (size_.size() != 1 && size_.size() != 2) {
    throw ValueError("Resize: size should be one number (the smaller edge) or {height, width}, got " +
                     std::to_string(size_.size()) + " numbers");
  }
}

Tensor Resize::operator()(const Tensor& image) const {
  if (!image.defined() || image.dim() < 2) return F::resize(image, 1, 1);  // reports the shape error
  std::vector<std::int64_t> hw = size_.size() == 2 ? size_ : F::resized_size(image.size(-2), image.size(-1), size_[0], max_size_);
  if (hw[0] == image.size(-2) && hw[1] == image.size(-1)) return image;  // torchvision returns it as is
  return F::resize(image, hw[0], hw[1]);
}

RandomCrop::RandomCrop(std::int64_t height, std::int64_t width, RandomCropOptions options)
    : h_(height), w_(width), options_(options) {
  if (height <= 0 || width <= 0 || options.padding < 0) {
    throw ValueError("RandomCrop: size must be positive and padding non-negative");
  }
}

Tensor RandomCrop::operator()(const Tensor& image) const {
  Tensor img = image;
  if (options_.padding > 0) {
    const std::int64_t p = options_.padding;
    img = F::pad(img, p, p, p, p, options_.fill);
  }
  if (img.dim() < 2) return F::crop(img, 0, 0, h_, w_);  // reports the shape error
  if (options_.pad_if_needed && img.size(-1) < w_) img = F::pad(img, w_ - img.size(-1), 0, w_ - img.size(-1), 0, options_.fill);
  if (options_.pad_if_needed && img.size(-2) < h_) img = F::pad(img, 0, h_ - img.size(-2), 0, h_ - img.size(-2), options_.fill);
  const std::int64_t h = img.size(-2), w = img.size(-1);
  if (h < h_ || w < w_) {
    throw ValueError("RandomCrop: required crop size [" + std::to_string(h_) + ", " + std::to_string(w_) +
                     "] is larger than the input image size [" + std::to_string(h) + ", " + std::to_string(w) +
                     "]. Hint: RandomCrop(size, {.pad_if_needed = true}) or a Resize first.");
  }
  if (h == h_ && w == w_) return img;
  Generator& gen = current_generator();
  const std::int64_t top = gen.randint(0, h - h_ + 1);
  const std::int64_t left = gen.randint(0, w - w_ + 1);
  return F::crop(img, top, left, h_, w_);
}

static double check_probability(double p, const char* name) {
  if (!(p >= 0 && p <= 1)) throw ValueError(std::string(name) + ": p should be in [0, 1], got " + std::to_string(p));
  return p;
}

RandomHorizontalFlip::RandomHorizontalFlip(double p) : p_(check_probability(p, "RandomHorizontalFlip")) {}

Tensor RandomHorizontalFlip::operator()(const Tensor& image) const {
  return current_generator().uniform() < p_ ? F::hflip(image) : image;
}

RandomVerticalFlip::RandomVerticalFlip(double p) : p_(check_probability(p, "RandomVerticalFlip")) {}

Tensor RandomVerticalFlip::operator()(const Tensor& image) const {
  return current_generator().uniform() < p_ ? F::vflip(image) : image;
}

RandomRotation::RandomRotation(double degrees, double fill) : lo_(-degrees), hi_(degrees), fill_(fill) {
  if (degrees < 0) {
    throw ValueError("RandomRotation: if degrees is a single number, it must be positive, got " + std::to_string(degrees));
  }
}

RandomRotation::RandomRotation(double min_degrees, double max_degrees, double fill)
    : lo_(min_degrees), hi_(max_degrees), fill_(fill) {
  if (min_degrees > max_degrees) throw ValueError("RandomRotation: min_degrees must not exceed max_degrees");
}

Tensor RandomRotation::operator()(const Tensor& image) const {
  const double angle = lo_ + (hi_ - lo_) * current_generator().uniform();
  return F::rotate(image, angle, fill_);
}

ColorJitter::ColorJitter(ColorJitterOptions options) : options_(options) {
  if (options.brightness < 0 || options.contrast < 0) {
    throw ValueError("ColorJitter: brightness and contrast must be non-negative");
  }
}

Tensor ColorJitter::operator()(const Tensor& image) const {
  Generator& gen = current_generator();
  // Like torchvision.get_params: first the order, then every factor, then apply.
  const bool brightness_first = gen.uniform() < 0.5;
  auto factor = [&](double x) {
    const double lo = std::max(0.0, 1.0 - x), hi = 1.0 + x;
    return lo + (hi - lo) * gen.uniform();
  };
  const double b = options_.brightness > 0 ? factor(options_.brightness) : 1.0;
  const double c = options_.contrast > 0 ? factor(options_.contrast) : 1.0;
  Tensor x = image;
  auto apply_b = [&] { if (options_.brightness > 0) x = F::adjust_brightness(x, b); };
  auto apply_c = [&] { if (options_.contrast > 0) x = F::adjust_contrast(x, c); };
  if (brightness_first) {
    apply_b();
    apply_c();
  } else {
    apply_c();
    apply_b();
  }
  return x;
}

}  // namespace kindling::data::transforms
