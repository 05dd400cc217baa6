// ch09.ex5 — squeeze-and-excitation: a gate per sample and channel, computed from the whole feature
// map, that scales each channel of it.
//
// vision::ops::SqueezeExcitation::forward (kindling/vision/ops.hpp): every MBConv block of
// efficientnet_b0 runs it between its depthwise convolution and its projection. The constructor
// (lib/src/vision/ops.cpp) built the members: avgpool (to 1x1), fc1 and fc2 (1x1 convolutions, C to
// squeeze_channels and back), `activation` (ReLU, or SiLU in EfficientNet) and `scale_activation`
// (the sigmoid).
#include "kindling/vision/ops.hpp"

namespace kindling::vision::ops {

Tensor SqueezeExcitation::forward(const Tensor& x) {
  // BEGIN SOLUTION ex5: squeeze to one number per channel, excite through fc1 and fc2, gate, scale
  // x: [N, C, H, W] -> [N, C, 1, 1] -> [N, squeeze, 1, 1] -> [N, C, 1, 1], each in (0, 1)
  Tensor scale = (*activation)(fc1(avgpool(x)));
  scale = (*scale_activation)(fc2(scale));
  return scale * x;  // broadcast over H and W: every pixel of a channel gets its channel's gate
  // END SOLUTION
}

}  // namespace kindling::vision::ops
