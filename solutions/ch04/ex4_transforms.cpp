// ex4 — RandomHorizontalFlip(p) and Normalize on CHW tensors.
#include <cstring>

#include "ch04/data_exercises.hpp"

namespace kindling::exercises::ch04 {

RandomHorizontalFlip::RandomHorizontalFlip(double p) {
  // BEGIN SOLUTION ex4: check 0 <= p <= 1, keep it
  if (!(p >= 0.0 && p <= 1.0)) {
    throw ValueError("RandomHorizontalFlip: p must be a probability in [0, 1], got " + std::to_string(p));
  }
  p_ = p;
  // END SOLUTION
}

Tensor RandomHorizontalFlip::operator()(const Tensor& image) const {
  // BEGIN SOLUTION ex4: one current_generator().uniform() per call; if < p, reverse the last dimension
  if (!image.defined() || image.dim() < 2) {
    throw ShapeError("RandomHorizontalFlip: expected an image [..., H, W], got " +
                     (image.defined() ? shape_str(image.shape()) : std::string("an undefined tensor")));
  }
  if (!(data::current_generator().uniform() < p_)) return image;
  // A copy whose column x is the input's column W-1-x, for every row of every channel.
  const Tensor src = image.contiguous();
  Tensor out = empty(src.shape(), {.dtype = src.dtype()});
  const std::int64_t w = src.size(-1);
  const std::int64_t rows = w == 0 ? 0 : src.numel() / w;  // all leading dims and H
  const std::size_t elem = element_size(src.dtype());
  const auto* s = static_cast<const char*>(src.raw_data_ptr());
  auto* d = static_cast<char*>(out.raw_data_ptr());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t x = 0; x < w; ++x) {
      std::memcpy(d + (r * w + x) * elem, s + (r * w + (w - 1 - x)) * elem, elem);
    }
  }
  return out;
  // END SOLUTION
}

Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& std) {
  // BEGIN SOLUTION ex4: check dims/dtype/sizes, then (image - mean) / std with mean, std shaped [C, 1, 1]
  if (!image.defined() || image.dim() < 3) {
    throw ShapeError("normalize: expected an image [..., C, H, W], got " +
                     (image.defined() ? shape_str(image.shape()) : std::string("an undefined tensor")) +
                     ". Hint: apply ToTensor first");
  }
  if (!image.is_floating_point()) {
    throw DTypeError(std::string("normalize: expected a float image, got ") + dtype_name(image.dtype()) +
                     ". Hint: apply ToTensor first");
  }
  const std::int64_t c = image.size(-3);
  auto per_channel = [&](const std::vector<double>& v, const char* name) {
    if (v.size() != 1 && static_cast<std::int64_t>(v.size()) != c) {
      throw ValueError(std::string("normalize: ") + name + " has " + std::to_string(v.size()) +
                       " values but the image " + shape_str(image.shape()) + " has " + std::to_string(c) +
                       " channels");
    }
    std::vector<double> full(static_cast<std::size_t>(c), v[0]);
    if (v.size() != 1) full = v;
    // [C, 1, 1]: broadcasts over H and W, and over any leading batch dimensions.
    return tensor(full, {c, 1, 1}).to(image.dtype());
  };
  for (double s : std)
    if (s == 0) throw ValueError("normalize: a std of 0 would divide by zero");
  const Tensor m = per_channel(mean, "mean");
  const Tensor s = per_channel(std, "std");
  return (image - m) / s;  // new tensors: the input is untouched
  // END SOLUTION
}

}  // namespace kindling::exercises::ch04
