// ch09.ex2 — Bottleneck::forward (behind resnet50): a block of the twin's sizes with the twin's
// weights, against torchvision's Bottleneck: the output in train() and eval() mode and the gradients
// through it.
#include "ch09_grading.hpp"

using namespace ch09_grading;

TEST_CASE("Bottleneck: an identity shortcut", "[ch09][ex2][pts=6]") {
  const std::int64_t planes = size_of("planes");
  models::Bottleneck block(4 * planes, planes);
  load_weights(block);
  run_and_report(block, "conv1.weight");
}

TEST_CASE("Bottleneck: a downsampling shortcut with stride 2", "[ch09][ex2][pts=6]") {
  const std::int64_t planes = size_of("planes"), in = size_of("inplanes");
  models::Bottleneck block(in, planes, 2, downsample(in, 4 * planes, 2));
  load_weights(block);
  run_and_report(block, "conv2.weight");
}

TEST_CASE("Bottleneck: the first block of resnet50's layer1 (more channels, stride 1)", "[ch09][ex2][pts=3]") {
  const std::int64_t planes = size_of("planes");
  models::Bottleneck block(planes, planes, 1, downsample(planes, 4 * planes, 1));
  load_weights(block);
  run_and_report(block, "conv3.weight");
}
