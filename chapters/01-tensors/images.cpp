// Chapter 1 — image layout: files and NumPy store pixels height x width x channels
// (HWC); convolutions want channels first (CHW). permute() changes the layout without
// copying; the first step of data loading makes it contiguous float32 once, so every
// later step sees [N, C, H, W].
#include <kindling/tensor.hpp>

#include <iostream>

namespace kd = kindling;

int main() {
  kd::manual_seed(0);
  // [snippet: hwc]
  // A batch of 2 RGB images of 4x5 pixels, as an image decoder returns them:
  // [N, H, W, C], uint8.
  kd::Tensor images = kd::randint(0, 256, {2, 4, 5, 3}, {.dtype = kd::kUInt8});
  // [N, C, H, W]: a view, nothing copied
  kd::Tensor chw = images.permute({0, 3, 1, 2});
  // [end]
  std::cout << "images: shape " << kd::shape_str(images.shape()) << ", strides "
            << kd::shape_str(images.strides()) << "\nchw:    shape "
            << kd::shape_str(chw.shape()) << ", strides "
            << kd::shape_str(chw.strides()) << ", contiguous " << std::boolalpha
            << chw.is_contiguous() << ", shares storage " << chw.shares_storage(images)
            << "\n";
  std::cout << "red channel of image 0 (chw[0][0]):\n" << chw[0][0] << "\n";

  // [snippet: to-tensor]
  // The first step of loading: one copy into CHW order, as float32 in [0, 1]
  // (what torchvision's ToTensor does).
  kd::Tensor batch = chw.contiguous().to(kd::kFloat32) / 255.0;
  // Per-channel normalisation: mean and std are [1, 3, 1, 1], so they broadcast over
  // N, H and W.
  kd::Tensor mean = kd::tensor({0.485f, 0.456f, 0.406f}).view({1, 3, 1, 1});
  kd::Tensor stdev = kd::tensor({0.229f, 0.224f, 0.225f}).view({1, 3, 1, 1});
  kd::Tensor normalised = (batch - mean) / stdev;
  // [end]
  std::cout << "batch: shape " << kd::shape_str(batch.shape()) << ", strides "
            << kd::shape_str(batch.strides()) << ", " << kd::dtype_name(batch.dtype())
            << "\nnormalised: shape " << kd::shape_str(normalised.shape())
            << ", mean of channel 0 of image 0: "
            << normalised[0][0].mean().item<float>() << "\n";

  // [snippet: forgot-permute]
  // Forgetting the permute: HWC pixels against per-channel [1, 3, 1, 1] statistics.
  try {
    kd::Tensor wrong = (images.to(kd::kFloat32) / 255.0 - mean) / stdev;
  } catch (const kd::ShapeError& e) {
    std::cout << "ShapeError: " << e.what() << "\n";
  }
  // [end]
}
