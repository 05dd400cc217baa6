// A "library call" submission (see tests/tools/library_calls/ch01/ex1_strides.cpp): the transforms through
// the transform classes — which call these very functions.
#include "kindling/data/transforms.hpp"

namespace kindling::data::transforms::functional {
Tensor to_tensor(const Tensor& image) { return ToTensor{}(image); }
Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& std) {
  return Normalize(mean, std)(image);
}
Tensor hflip(const Tensor& image) { return RandomHorizontalFlip(1.0)(image); }
}  // namespace kindling::data::transforms::functional
