// ch09.ex1 — BasicBlock::forward (behind resnet18 and resnet34): a block of the twin's sizes with the
// twin's weights, against torchvision's BasicBlock: the output in train() and eval() mode and the
// gradients through it.
#include "ch09_grading.hpp"

using namespace ch09_grading;

TEST_CASE("BasicBlock: an identity shortcut", "[ch09][ex1][pts=7]") {
  const std::int64_t c = size_of("channels");
  models::BasicBlock block(c, c);
  load_weights(block);
  run_and_report(block, "conv1.weight");
}

TEST_CASE("BasicBlock: a downsampling shortcut, stride 2 and twice the channels", "[ch09][ex1][pts=8]") {
  const std::int64_t c = size_of("channels");
  models::BasicBlock block(c, 2 * c, 2, downsample(c, 2 * c, 2));
  load_weights(block);
  run_and_report(block, "downsample.0.weight");
}

TEST_CASE("BasicBlock: two blocks in a stage, the last ReLU after the sum", "[ch09][ex1][pts=5]") {
  const std::int64_t c = size_of("channels");
  kd::nn::Sequential stage(std::make_shared<models::BasicBlock>(c, 2 * c, 1, downsample(c, 2 * c, 1)),
                           std::make_shared<models::BasicBlock>(2 * c, 2 * c));
  load_weights(stage);
  run_and_report(stage, "1.conv2.weight");
}
