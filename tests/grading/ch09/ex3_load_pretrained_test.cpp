// ch09.ex3 — load_pretrained (which calls the piece detail::match_pretrained): the twin's checkpoint
// into a model whose own values the twin also set; the report, key by key, and every tensor after the
// load, against what PyTorch's filter-then-load_state_dict(strict=False) idiom gives.
#include "ch09_grading.hpp"

using namespace ch09_grading;

namespace {

/// The twin's checkpoint: its keys (text input "keys", in order) and tensors ("ckpt.<key>").
kd::StateDict checkpoint() {
  kd::StateDict sd;
  for (const std::string& key : lines("keys")) sd.insert(key, grading::input("ckpt." + key));
  return sd;
}

void report(const models::TransferReport& r) {
  grading::expect("loaded", join(r.loaded));
  grading::expect("mismatched_keys", join(r.mismatched_keys));
  grading::expect("missing_keys", join(r.missing_keys));
  grading::expect("unexpected_keys", join(r.unexpected_keys));
}

/// A downsampling BasicBlock with the twin's "init." values, the checkpoint loaded into it, and
/// everything reported.
void load_into_block() {
  const std::int64_t c = size_of("channels");
  models::BasicBlock block(c, 2 * c, 2, downsample(c, 2 * c, 2));
  load_weights(block, "init.");
  report(models::load_pretrained(block, checkpoint()));
  for (const auto& [key, t] : block.state_dict())
    if (key.find("num_batches_tracked") == std::string::npos) grading::expect("after: " + key, t);
}

}  // namespace

TEST_CASE("load_pretrained: a new head is mismatched, the rest loads", "[ch09][ex3][pts=6]") { load_into_block(); }

TEST_CASE("load_pretrained: missing and unexpected keys, each in its own order", "[ch09][ex3][pts=6]") {
  load_into_block();
}

TEST_CASE("load_pretrained: a shape with the same number of elements is still mismatched", "[ch09][ex3][pts=4]") {
  load_into_block();
}

TEST_CASE("load_pretrained: resnet18's 1000-class checkpoint into a resnet18 with its own head",
          "[ch09][ex3][pts=4]") {
  const std::int64_t classes = size_of("classes");
  auto source = models::resnet18();
  auto model = models::resnet18({.num_classes = classes});
  report(models::load_pretrained(*model, source->state_dict()));
  grading::expect("fc.weight shape", model->fc->weight.shape());
}
