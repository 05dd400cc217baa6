#pragma once
/// @file
/// Image operations without randomness — torchvision.transforms.functional in C++. The transform
/// classes (transforms.hpp) draw their random parameters and call these.
///
/// Layout: like torchvision's *tensor* API, images are [..., H, W] tensors — [C, H, W] for one
/// image, [B, C, H, W] for a batch, [H, W] for a plain grayscale image — of dtype uint8 (0..255) or
/// float32/float64 (0..1). Only to_tensor and pil_to_tensor take HWC images (what image files and
/// NumPy arrays hold) and turn them into CHW.
///
/// Agreement with torchvision 0.14 (checked by tests/parity/ch04_transforms): to_tensor, normalize,
/// crop, center_crop, pad, flips, rotate (nearest), brightness, contrast, grayscale and dtype
/// conversion match exactly on the tested inputs (contrast sums the image mean in another order, so
/// an ulp of difference is possible). resize (bilinear, antialias=False) matches within 1.2e-7 on
/// float images (PyTorch's vectorised kernel adds the four weighted pixels in another order), and
/// within ±1 on uint8 images, only where the exact value is a tie x.5 that the last ulp decides.
#include <cstdint>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::data::transforms::functional {

/// HWC (or HW) uint8 image → CHW float32 in [0, 1] (divided by 255). Float HWC input is permuted
/// without scaling (like torchvision for float NumPy arrays). [H, W] → [1, H, W].
Tensor to_tensor(const Tensor& image);
/// HWC (or HW) image → CHW with the same dtype and values (torchvision's PILToTensor).
Tensor pil_to_tensor(const Tensor& image);
/// uint8 → float (x / 255); float → uint8 (x * 255.999, truncated, like torchvision); or a plain
/// float32 ↔ float64 conversion.
Tensor convert_image_dtype(const Tensor& image, DType dtype);
/// (x - mean[c]) / std[c] on a float [..., C, H, W] image; mean/std hold C values (or one).
Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& std);
/// Bilinear resize to exactly height × width (align_corners=False, no antialiasing). uint8 images
/// are resized in float32 and rounded back.
Tensor resize(const Tensor& image, std::int64_t height, std::int64_t width);
/// torchvision's output size for Resize(size): the *smaller* edge becomes `size`, the other keeps
/// the aspect ratio (truncated), capped at max_size (0 = none). Returns {height, width}.
std::vector<std::int64_t> resized_size(std::int64_t height, std::int64_t width, std::int64_t size,
                                       std::int64_t max_size = 0);
/// The [top, top+height) × [left, left+width) window; parts outside the image are 0.
Tensor crop(const Tensor& image, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width);
/// Crops the centre (padding with 0 first when the image is smaller), like torchvision.
Tensor center_crop(const Tensor& image, std::int64_t height, std::int64_t width);
/// Constant padding of the last two dimensions.
Tensor pad(const Tensor& image, std::int64_t left, std::int64_t top, std::int64_t right, std::int64_t bottom,
           double fill = 0);
/// Mirror left ↔ right (reverse the last dimension).
Tensor hflip(const Tensor& image);
/// Mirror top ↔ bottom.
Tensor vflip(const Tensor& image);
/// Rotates counter-clockwise by `angle` degrees about the centre, nearest-neighbour sampling,
/// same output size; pixels from outside the image are `fill`.
Tensor rotate(const Tensor& image, double angle, double fill = 0);
/// Blend with black: x * factor, clamped to the image's range (0 gives black, 1 the original).
Tensor adjust_brightness(const Tensor& image, double factor);
/// Blend with the mean of the grayscale image: mean + factor * (x - mean), clamped.
Tensor adjust_contrast(const Tensor& image, double factor);
/// [..., 3, H, W] → [..., 1, H, W] with weights 0.2989, 0.587, 0.114 (a 1-channel image is copied).
Tensor rgb_to_grayscale(const Tensor& image);

}  // namespace kindling::data::transforms::functional
