// ex4 — image layout: HWC (files, NumPy) to CHW (convolutions), as a view and as a float copy.
#include "ch01/tensor_exercises.hpp"

namespace kindling::exercises::ch01 {

Tensor hwc_to_chw(const Tensor& images) {
  // BEGIN SOLUTION ex4: permute the channel dimension in front of height and width
  if (images.dim() == 4) return images.permute({0, 3, 1, 2});  // [N, H, W, C] -> [N, C, H, W]
  if (images.dim() == 3) return images.permute({2, 0, 1});     // [H, W, C] -> [C, H, W]
  throw ShapeError("hwc_to_chw: expected an image batch [N, H, W, C] or one image [H, W, C], got a " +
                   std::to_string(images.dim()) + "-d tensor of shape " + shape_str(images.shape()));
  // END SOLUTION
}

Tensor images_to_tensor(const Tensor& images) {
  // BEGIN SOLUTION ex4: check uint8, change the layout, copy once, convert and scale to [0, 1]
  if (images.dtype() != kUInt8) {
    throw DTypeError(std::string("images_to_tensor: expected uint8 pixels (0..255), got ") +
                     dtype_name(images.dtype()) + " of shape " + shape_str(images.shape()));
  }
  // contiguous() makes the one copy in CHW order; to(float32) and / 255 then run over contiguous data.
  return hwc_to_chw(images).contiguous().to(kFloat32) / 255.0;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch01
