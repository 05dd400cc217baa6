// ch09.ex2 — ResNet-50's block: 1x1 to reduce the channels, 3x3 with the stride, 1x1 to expand them
// four times, then the shortcut added before the last ReLU.
//
// vision::models::Bottleneck::forward (kindling/vision/models.hpp): ResNet::forward runs it through
// layer1..layer4 of resnet50. The constructor (lib/src/vision/models.cpp) built the members: conv2
// carries the stride (torchvision's "ResNet v1.5"), conv3 ends with planes * expansion channels, and
// `downsample` exists only where the block changes the size or the channel count.
#include "kindling/vision/models.hpp"

namespace kindling::vision::models {

Tensor Bottleneck::forward(const Tensor& x) {
  // BEGIN SOLUTION ex2: three conv-bn stages (ReLU after the first two), the shortcut, relu
  // x: [N, inplanes, H, W] -> [N, planes, H, W] -> [N, planes, H / s, W / s] -> [N, 4 planes, H / s, W / s]
  Tensor out = relu(bn1(conv1(x)));
  out = relu(bn2(conv2(out)));
  out = bn3(conv3(out));  // no ReLU yet: the sum gets it
  Tensor identity = downsample ? (*downsample)(x) : x;
  return relu(out + identity);
  // END SOLUTION
}

}  // namespace kindling::vision::models
