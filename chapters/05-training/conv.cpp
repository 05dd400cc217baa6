// Convolution and pooling on numbers small enough to follow by hand: a 5x5 image with a
// vertical edge, a 3x3 filter that responds to it (padding 1 keeps the size), one
// output element recomputed as a sum of products, and 2x2 max pooling. The numbers also
// go to ch05_conv.json for the book's picture.
#include <fstream>
#include <iostream>

#include "common.hpp"

namespace F = kd::nn::functional;

namespace {
std::string json_grid(const kd::Tensor& t) {  // a [h, w] tensor as a JSON list of rows
  std::string s = "[";
  for (std::int64_t i = 0; i < t.size(0); ++i) {
    s += i ? ", [" : "[";
    for (std::int64_t j = 0; j < t.size(1); ++j)
      s += (j ? ", " : "") + std::to_string(t[i][j].item<float>());
    s += "]";
  }
  return s + "]";
}
}  // namespace

int main() {
  // [snippet: conv]
  kd::Tensor image = kd::zeros({1, 1, 5, 5});  // [N, C, H, W]: dark on the left ...
  image.narrow(3, 3, 2).fill_(1.0);            // ... bright in the last two columns
  kd::Tensor kernel = kd::tensor({{-1.0f, 0.0f, 1.0f},  // right minus left: a vertical
                                  {-1.0f, 0.0f, 1.0f},  // edge detector, [O, C, 3, 3]
                                  {-1.0f, 0.0f, 1.0f}})
                          .view({1, 1, 3, 3});
  kd::Tensor out = F::conv2d(image, kernel, {}, /*stride=*/1, /*padding=*/1);
  // [end]
  std::cout << "image [5, 5]:\n"
            << image[0][0] << "\nkernel [3, 3]:\n"
            << kernel[0][0] << "\nconv2d, padding 1 -> [5, 5]:\n"
            << out[0][0] << "\n";
  // [snippet: by-hand]
  // out[1][2] is the window of rows 0..2, columns 1..3 of the image, times the kernel:
  kd::Tensor window = image[0][0].narrow(0, 0, 3).narrow(1, 1, 3);
  const float by_hand = (window * kernel[0][0]).sum().item<float>();
  // [end]
  std::cout << "out[1][2] by hand: sum(window * kernel) = " << by_hand
            << ", conv2d: " << out[0][0][1][2].item<float>() << "\n";
  // [snippet: pool]
  kd::Tensor features = kd::tensor({{1.0f, 3.0f, 2.0f, 0.0f},
                                   {5.0f, 6.0f, 1.0f, 2.0f},
                                   {0.0f, 2.0f, 4.0f, 7.0f},
                                   {3.0f, 1.0f, 8.0f, 5.0f}})
                            .view({1, 1, 4, 4});
  kd::Tensor pooled = F::max_pool2d(features, 2);  // [1, 1, 4, 4] -> [1, 1, 2, 2]
  // [end]
  std::cout << "features [4, 4]:\n"
            << features[0][0] << "\nmax_pool2d(2) -> [2, 2]:\n"
            << pooled[0][0] << "\n";
  std::ofstream("ch05_conv.json")
      << "{\"image\": " << json_grid(image[0][0]) << ", \"kernel\": "
      << json_grid(kernel[0][0]) << ", \"out\": " << json_grid(out[0][0])
      << ", \"features\": " << json_grid(features[0][0])
      << ", \"pooled\": " << json_grid(pooled[0][0]) << "}\n";
  return 0;
}
