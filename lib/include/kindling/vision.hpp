#pragma once
/// @file
/// The model zoo layer (torchvision's ResNet, VGG, MobileNetV2, EfficientNet with
/// their module names, so their weights load and their outputs match), the blocks they share
/// (kindling::vision::ops) and named-stage outputs for transfer learning. `#include <kindling/vision.hpp>`.
#include "kindling/debug.hpp"
#include "kindling/nn/child.hpp"
#include "kindling/vision/feature_extraction.hpp"
#include "kindling/vision/models.hpp"
#include "kindling/vision/ops.hpp"
#include "kindling/vision/transfer.hpp"
