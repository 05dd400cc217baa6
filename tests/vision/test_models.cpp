// Chapter 9's layer without PyTorch: replacing a child, freezing, parameter groups, strict loading
// errors, hostile weight files, stochastic depth's draws, the feature extractor's errors.
// (Parity with torchvision itself: tests/parity/ch09_vision.*.)
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <kindling/train.hpp>
#include <kindling/vision.hpp>

namespace kd = kindling;
namespace models = kd::vision::models;
using Catch::Contains;

namespace {
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("kindling_vision_" + std::to_string(::getpid()) + "_" + name)).string();
}

// A safetensors file with the given header and `data_bytes` zero bytes after it.
std::string write_raw(const std::string& name, const std::string& header, std::size_t data_bytes) {
  const std::string path = temp_path(name);
  std::ofstream f(path, std::ios::binary);
  const std::uint64_t n = header.size();
  char size[8];
  for (int i = 0; i < 8; ++i) size[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  f.write(size, 8);
  f << header;
  f << std::string(data_bytes, '\0');
  return path;
}
}  // namespace

TEST_CASE("models: assigning model->fc re-registers the new head in its place") {
  auto model = models::resnet18({.num_classes = 1000});
  const auto before = model->state_dict();
  model->fc = kd::nn::Linear(512, 3);
  const auto after = model->state_dict();
  REQUIRE(after.size() == before.size());
  CHECK(after.at("fc.weight").shape() == kd::Shape{3, 512});
  CHECK(model->fc->weight.shape() == kd::Shape{3, 512});
  // Same place in the tree: the last child, the last keys.
  CHECK(model->named_children().back().first == "fc");
  CHECK(model->named_children().back().second == &model->fc.module());
  CHECK_THAT(model->to_string(), Contains("(fc): Linear(in_features=512, out_features=3, bias=True)"));
  kd::NoGradGuard no_grad;
  CHECK((*model)(kd::randn({2, 3, 32, 32})).shape() == kd::Shape{2, 3});

  // Any module can take the head's place; fc-> then names the type it holds.
  model->fc = kd::nn::Sequential(kd::nn::Dropout(0.2), kd::nn::Linear(512, 4));
  CHECK(model->state_dict().contains("fc.1.weight"));
  CHECK_FALSE(model->state_dict().contains("fc.weight"));
  CHECK_THROWS_WITH(model->fc->weight, Contains("Sequential") && Contains("as<T>"));
  CHECK(model->fc.as<kd::nn::Sequential>().size() == 2);
  model->eval();
  CHECK((*model)(kd::randn({2, 3, 32, 32})).shape() == kd::Shape{2, 4});
}

TEST_CASE("models: replace_module of a name that is not a child lists the children") {
  auto model = models::resnet18();
  CHECK_THROWS_AS(model->replace_module("head", std::make_shared<kd::nn::Linear>(512, 2)), kd::ValueError);
  CHECK_THROWS_WITH(model->replace_module("head", std::make_shared<kd::nn::Linear>(512, 2)),
                    Contains("'head'") && Contains("conv1, bn1, relu, maxpool, layer1"));
}

TEST_CASE("models: a frozen backbone gets no gradient and parameter groups keep their own lr") {
  auto model = models::resnet18({.num_classes = 10});
  model->requires_grad_(false);
  model->fc = kd::nn::Linear(512, 5);  // new layers train by default, as in PyTorch
  CHECK(model->num_parameters(/*only_trainable=*/true) == 512 * 5 + 5);
  // The optimizer only gets what trains; frozen tensors are refused by name.
  std::vector<kd::Tensor> head = model->fc->parameters();
  CHECK_THROWS_AS(kd::optim::SGD(model->parameters(), {.lr = 0.1}), kd::Error);
  kd::optim::SGD opt(head, {.lr = 0.1});
  model->requires_grad_(true);
  model->fc->requires_grad_(false);
  std::vector<kd::Tensor> last_stage = model->layer4.parameters();
  opt.add_param_group(last_stage, {.lr = 0.001});
  CHECK(opt.num_param_groups() == 2);
  CHECK(opt.lr(0) == 0.1);
  CHECK(opt.lr(1) == 0.001);

  // A step moves layer4 by lr·grad and leaves the rest (no grad, not in the optimizer) unchanged.
  model->fc->requires_grad_(true);
  for (auto& [name, p] : model->named_parameters())
    if (name.rfind("layer4.", 0) != 0 && name.rfind("fc.", 0) != 0) p.requires_grad_(false);
  const kd::Tensor conv1_before = model->conv1.weight.clone();
  const kd::Tensor l4_before = model->layer4.at<models::BasicBlock>(1).conv2.weight.clone();
  model->train();
  kd::Tensor loss = (*model)(kd::randn({4, 3, 32, 32})).pow(2.0).mean();
  opt.zero_grad();
  loss.backward();
  CHECK_FALSE(model->conv1.weight.grad().defined());
  kd::Tensor g = model->layer4.at<models::BasicBlock>(1).conv2.weight.grad();
  REQUIRE(g.defined());
  opt.step();
  CHECK(kd::allclose(model->conv1.weight, conv1_before));
  CHECK(kd::allclose(model->layer4.at<models::BasicBlock>(1).conv2.weight, l4_before - g * 0.001, 1e-5, 1e-7));
}

TEST_CASE("models: strict loading names every missing and unexpected and mis-shaped key") {
  auto model = models::resnet18({.num_classes = 10});
  kd::StateDict sd = models::resnet18({.num_classes = 10})->state_dict();
  kd::Tensor w = sd.at("layer1.0.conv1.weight");
  sd.erase("layer1.0.conv1.weight");
  sd.insert("layer1.0.conv_1.weight", w);       // renamed: missing + unexpected
  sd.erase("bn1.running_var");                  // missing
  sd.at("fc.weight") = kd::zeros({4, 512});     // mis-shaped
  const std::string path = temp_path("renamed.safetensors");
  kd::save(sd, path);
  try {
    model->load_state_dict(kd::load(path));
    FAIL("load_state_dict accepted a renamed, incomplete, mis-shaped state dict");
  } catch (const kd::ValueError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Contains("\"layer1.0.conv1.weight\"") && Contains("\"bn1.running_var\""));
    CHECK_THAT(msg, Contains("Unexpected key(s)") && Contains("\"layer1.0.conv_1.weight\""));
    CHECK_THAT(msg, Contains("'fc.weight'") && Contains("[4, 512]") && Contains("[10, 512]"));
  }
  // Nothing was copied: the model's own fc is untouched.
  CHECK(model->fc->weight.shape() == kd::Shape{10, 512});
  // Non-strict: the keys come back, the mis-shaped one still throws (as in PyTorch).
  CHECK_THROWS_WITH(model->load_state_dict(kd::load(path), false), Contains("fc.weight"));
  std::filesystem::remove(path);
}

TEST_CASE("models: hostile weight files are refused naming the file and the problem") {
  auto model = models::mobilenet_v2({.num_classes = 10});
  // Truncated: a real file cut in the middle of its data.
  const std::string good = temp_path("good.safetensors");
  kd::save(model->state_dict(), good);
  const auto size = std::filesystem::file_size(good);
  const std::string cut = temp_path("cut.safetensors");
  std::filesystem::copy_file(good, cut, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut, size / 2);
  CHECK_THROWS_AS(kd::load(cut), kd::IOError);
  CHECK_THROWS_WITH(kd::load(cut), Contains(cut));
  // A header that claims far more bytes than the file has.
  std::string header_size_lie = temp_path("header_lie.safetensors");
  {
    std::ofstream f(header_size_lie, std::ios::binary);
    const char size8[8] = {0, 0, 0, 0, 0, 0, 0, 0x10};  // 2^60 bytes of header
    f.write(size8, 8);
    f << "{}";
  }
  CHECK_THROWS_AS(kd::load(header_size_lie), kd::IOError);
  CHECK_THROWS_WITH(kd::load(header_size_lie), Contains(header_size_lie));
  // A tensor whose declared shape is huge, backed by 16 bytes: refused before allocating.
  const std::string huge = write_raw(
      "huge.safetensors", R"({"features.0.0.weight":{"dtype":"F32","shape":[4000000000,4000000000],"data_offsets":[0,16]}})", 16);
  CHECK_THROWS_AS(kd::load(huge), kd::IOError);
  CHECK_THROWS_WITH(kd::load(huge), Contains("features.0.0.weight"));
  // A well-formed file with a wrong shape for a key: refused by load_state_dict naming key and shapes.
  const std::string wrong = write_raw(
      "wrong.safetensors", R"({"features.0.0.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", 16);
  CHECK_THROWS_WITH(model->load_state_dict(kd::load(wrong), false),
                    Contains("features.0.0.weight") && Contains("[2, 2]") && Contains("[32, 3, 3, 3]"));
  for (const auto& p : {good, cut, header_size_lie, huge, wrong}) std::filesystem::remove(p);
}

TEST_CASE("ops: stochastic_depth drops whole rows with probability p in training and is the identity otherwise") {
  kd::manual_seed(3);
  const kd::Tensor x = kd::ones({2000, 2, 3, 3});
  const kd::Tensor y = kd::vision::ops::stochastic_depth(x, 0.25, "row", true);
  const kd::Tensor per_row = y.reshape({2000, 18});
  std::int64_t kept = 0;
  for (std::int64_t i = 0; i < 2000; ++i) {
    const kd::Tensor r = per_row.select(0, i);
    const double lo = r.min().item<double>(), hi = r.max().item<double>();
    REQUIRE(lo == hi);  // a row is dropped or kept whole
    REQUIRE((hi == 0.0 || std::abs(hi - 1.0 / 0.75) < 1e-6));
    kept += hi != 0.0;
  }
  // Binomial(2000, 0.75): mean 1500, standard deviation 19.4; 6 deviations either side.
  CHECK(kept > 1500 - 117);
  CHECK(kept < 1500 + 117);
  // "batch": one draw for everything.
  const kd::Tensor b = kd::vision::ops::stochastic_depth(x, 0.5, "batch", true);
  CHECK((b.min().item<double>() == b.max().item<double>()));
  CHECK(kd::vision::ops::stochastic_depth(x, 0.9, "row", false).data_ptr<float>() == x.data_ptr<float>());
  CHECK_THROWS_WITH(kd::vision::ops::StochasticDepth(1.5, "row"), Contains("between 0 and 1"));
  CHECK_THROWS_WITH(kd::vision::ops::StochasticDepth(0.1, "col"), Contains("'col'"));
  CHECK(kd::vision::ops::StochasticDepth(0.0125, "row").to_string() == "StochasticDepth(p=0.0125, mode=row)");
}

TEST_CASE("feature extractor: stages by dotted name with hooks gone after the call and unknown names refused") {
  auto model = models::resnet18({.num_classes = 10});
  model->eval();
  auto body = kd::vision::create_feature_extractor(model, {"layer2", "layer4.1.conv2"});
  kd::NoGradGuard no_grad;
  const kd::Tensor x = kd::randn({1, 3, 64, 64});
  auto f = body(x);
  CHECK(f.at("layer2").shape() == kd::Shape{1, 128, 8, 8});
  CHECK(f.at("layer4.1.conv2").shape() == kd::Shape{1, 512, 2, 2});
  // The hooks were removed: a direct call records nothing, the logits are unchanged.
  CHECK(kd::allclose((*model)(x), (*model)(x)));
  CHECK_THROWS_WITH(kd::vision::create_feature_extractor(model, {"layer5"}),
                    Contains("'layer5'") && Contains("layer4, avgpool, fc"));
  CHECK_THROWS_WITH(kd::vision::create_feature_extractor(model, {"layer1", "layer1"}), Contains("twice"));
}

TEST_CASE("models: get_model by torchvision name and bad arguments") {
  for (const auto& name : models::list_models()) {
    if (name == "vgg11_bn") continue;  // 130 M parameters to draw: the parity suite builds it
    auto m = models::get_model(name, 3);
    CHECK(m->num_parameters() > 0);
  }
  CHECK_THROWS_WITH(models::get_model("resnet19"), Contains("resnet18") && Contains("efficientnet_b0"));
  CHECK_THROWS_WITH(models::resnet18({.num_classes = 0}), Contains("num_classes"));
}

TEST_CASE("models: a frozen backbone kept in eval() leaves its BatchNorm statistics alone") {
  auto model = models::resnet18({.num_classes = 10});
  model->requires_grad_(false);
  model->fc = kd::nn::Linear(512, 2);
  model->train();
  // PyTorch's idiom: train() the model, then eval() the frozen part (BatchNorm uses and keeps its
  // running statistics there); only the new head is in training mode.
  for (auto* stage : std::vector<kd::nn::Module*>{&model->conv1, &model->bn1, &model->layer1, &model->layer2,
                                                   &model->layer3, &model->layer4})
    stage->eval();
  const kd::Tensor mean_before = model->layer2.at<models::BasicBlock>(0).bn1.running_mean.clone();
  const kd::Tensor count_before = model->bn1.num_batches_tracked.clone();
  kd::Tensor loss = (*model)(kd::randn({4, 3, 32, 32})).pow(2.0).mean();
  loss.backward();
  CHECK(kd::equal(model->layer2.at<models::BasicBlock>(0).bn1.running_mean, mean_before));
  CHECK(kd::equal(model->bn1.num_batches_tracked, count_before));
  CHECK(model->fc.module().is_training());
  CHECK(model->fc->weight.grad().defined());
  CHECK_FALSE(model->layer4.at<models::BasicBlock>(1).conv2.weight.grad().defined());
  // Without the eval(), the same forward moves them: the test above can fail.
  model->train();
  (*model)(kd::randn({4, 3, 32, 32}));
  CHECK_FALSE(kd::equal(model->layer2.at<models::BasicBlock>(0).bn1.running_mean, mean_before));
}

TEST_CASE("transfer: load_pretrained copies what fits and reports the rest, fine_tuning_groups refuses bad names") {
  // A 1000-class checkpoint into a 10-class model: everything loads but the head, which keeps its own.
  auto source = models::resnet18();
  auto model = models::resnet18({.num_classes = 10});
  const kd::Tensor fc_before = model->fc->weight.clone();
  const models::TransferReport r = models::load_pretrained(*model, source->state_dict());
  CHECK(r.mismatched_keys == std::vector<std::string>{"fc.weight", "fc.bias"});
  CHECK(r.missing_keys.empty());
  CHECK(r.unexpected_keys.empty());
  CHECK(r.loaded.size() + 2 == model->state_dict().size());
  CHECK(kd::equal(model->conv1.weight, source->conv1.weight));
  CHECK(kd::equal(model->fc->weight, fc_before));

  // The names are checked before anything is frozen: an unknown child is listed with the real ones.
  CHECK_THROWS_WITH(models::fine_tuning_groups(*model, {.head = "head"}),
                    Contains("'head'") && Contains("conv1, bn1, relu, maxpool, layer1"));
  CHECK_THROWS_WITH(models::fine_tuning_groups(*model, {.frozen = {"layer5"}}), Contains("'layer5'"));
  CHECK_THROWS_WITH(models::fine_tuning_groups(*model, {.frozen = {"fc"}}), Contains("never train"));
  CHECK_THROWS_WITH(models::fine_tuning_groups(*model, {.lr = -0.1}), Contains("learning rates"));
  CHECK(model->num_parameters(/*only_trainable=*/true) == model->num_parameters());

  // Everything but the head frozen: the SGD has one group, the head's, at head_lr.
  auto opt = models::fine_tuning_sgd(
      *model, {.frozen = {"conv1", "bn1", "layer1", "layer2", "layer3", "layer4"}, .head_lr = 0.3}, {.momentum = 0.9});
  CHECK(opt->num_param_groups() == 1);
  CHECK(opt->lr(0) == 0.3);
  CHECK(opt->params(0).size() == 2);
  CHECK(model->num_parameters(/*only_trainable=*/true) == 512 * 10 + 10);
}
