// ch09.ex1 — ResNet-18/34's block: two 3x3 convolutions, and the shortcut added before the last ReLU.
//
// vision::models::BasicBlock::forward (kindling/vision/models.hpp): ResNet::forward runs it through
// layer1..layer4, every block of resnet18 and resnet34. The constructor (lib/src/vision/models.cpp)
// built the members: conv1 carries the block's stride, and `downsample` (a 1x1 convolution with that
// stride and a BatchNorm2d) exists only where the block changes the size or the channel count.
#include "kindling/vision/models.hpp"

namespace kindling::vision::models {

Tensor BasicBlock::forward(const Tensor& x) {
  // BEGIN SOLUTION ex1: conv-bn-relu, conv-bn, add the shortcut, relu
  // x: [N, inplanes, H, W] -> out: [N, planes, H / stride, W / stride]
  Tensor out = relu(bn1(conv1(x)));
  out = bn2(conv2(out));
  // The shortcut must have out's shape: x itself, or x through downsample where the block changes
  // the size (stride 2) or the channel count.
  Tensor identity = downsample ? (*downsample)(x) : x;
  return relu(out + identity);
  // END SOLUTION
}

}  // namespace kindling::vision::models
