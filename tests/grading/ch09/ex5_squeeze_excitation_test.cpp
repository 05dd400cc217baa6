// ch09.ex5 — SqueezeExcitation::forward (behind every MBConv block of efficientnet_b0): a gate of the
// twin's sizes with the twin's weights, against torchvision.ops.SqueezeExcitation: its output and the
// gradients through it.
#include "ch09_grading.hpp"

using namespace ch09_grading;

TEST_CASE("SqueezeExcitation: one gate per sample and channel (ReLU, torchvision's default)", "[ch09][ex5][pts=5]") {
  kd::vision::ops::SqueezeExcitation se(size_of("channels"), size_of("squeeze"));
  load_weights(se);
  run_and_report(se, "fc1.weight");
}

TEST_CASE("SqueezeExcitation: EfficientNet's SiLU", "[ch09][ex5][pts=5]") {
  kd::vision::ops::SqueezeExcitation se(size_of("channels"), size_of("squeeze"), kd::vision::ops::Activation::SiLU);
  load_weights(se);
  run_and_report(se, "fc2.weight");
}
