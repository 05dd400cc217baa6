// Chapter 9's milestone: transfer learning on your library. A small ResNet, built from your BasicBlock
// (ex1), first learns a source task: five of Fashion-MNIST's ten classes (T-shirt, trouser, pullover,
// dress, coat). That is its "pretraining". A second network with a new ten-class head then loads it
// with your load_pretrained (ex3: every key loads but the head's, whose shape changed), freezes its
// stem through your fine_tuning_sgd (ex4: the frozen stage in no group, the backbone at a tenth of the
// head's learning rate), and is fine-tuned on all ten classes. The program writes the fine-tuned
// weights; milestone.py evaluates them on the 10,000 test images, which it never sees (IN_DIR holds the
// training set only).
//
// Accuracy alone would pass pieces this run does not lean on (Bottleneck and SqueezeExcitation are not
// in this network at all;
// a block whose last ReLU comes before the sum still learns). So the program also runs each piece on the
// checker's data, drawn per run, and writes what it gave; milestone.py computes every answer itself
// with PyTorch and torchvision:
//   probe_logits.npy     the fine-tuned network's logits (eval()) on the checker's probe images (ex1)
//   bottleneck<k>.*      two Bottleneck blocks of the checker's sizes and weights, one with a
//                        downsampling shortcut: their outputs in eval() and train() mode (ex2)
//   se.npy               a SqueezeExcitation gate of the checker's sizes and weights (SiLU) on its
//                        input (ex5)
//   transfer.txt         what load_pretrained reported for the checker's checkpoint, and for the
//                        pretrained network (ex3)
//   groups.txt           fine_tuning_groups' groups for the checker's frozen stages and rates, and
//                        every parameter's requires_grad after it (ex4)
//
//   milestone_ch09 IN_DIR OUT_DIR
#include "milestone_main.hpp"
#include <kindling/kindling.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace kd = kindling;
namespace models = kd::vision::models;

namespace {

/// A ResNet for 28x28 grey images, in torchvision's names: a 3x3 stem with stride 2 (to 14x14), three
/// stages of one BasicBlock each (16, 32 and 64 channels; the last two halve the size through a
/// downsampling shortcut, to 7x7 and 4x4), global average pooling and a replaceable head.
/// [N, 1, 28, 28] -> [N, classes].
class SmallResNet : public kd::nn::Module {
 public:
  explicit SmallResNet(std::int64_t classes) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("relu", relu);
    layer1.push_back(std::make_shared<models::BasicBlock>(16, 16));
    layer2.push_back(std::make_shared<models::BasicBlock>(16, 32, 2, downsample(16, 32)));
    layer3.push_back(std::make_shared<models::BasicBlock>(32, 64, 2, downsample(32, 64)));
    register_module("layer1", layer1);
    register_module("layer2", layer2);
    register_module("layer3", layer3);
    register_module("avgpool", avgpool);
    fc.bind(*this, "fc", kd::nn::Linear(64, classes));
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = layer3(layer2(layer1(relu(bn1(conv1(x))))));
    return fc(kd::nn::functional::flatten(avgpool(h), 1));
  }
  std::string type_name() const override { return "SmallResNet"; }

  kd::nn::Conv2d conv1{1, 16, 3, {.stride = 2, .padding = 1, .bias = false}};
  kd::nn::BatchNorm2d bn1{16};
  kd::nn::ReLU relu{true};
  kd::nn::Sequential layer1, layer2, layer3;
  kd::nn::AdaptiveAvgPool2d avgpool{1};
  kd::nn::Child<kd::nn::Linear> fc;

 private:
  static std::shared_ptr<kd::nn::Sequential> downsample(std::int64_t in, std::int64_t out) {
    return std::make_shared<kd::nn::Sequential>(kd::nn::Conv2d(in, out, 1, {.stride = 2, .bias = false}),
                                                kd::nn::BatchNorm2d(out));
  }
};

struct Data {
  kd::Tensor x, y;  // [n, 1, 28, 28] float32 (normalised as chapter 5's), [n] int64
};

Data load(const std::string& dir) {
  kd::data::MNIST set(dir, kd::data::Split::Train);
  kd::Tensor x = (set.data().to(kd::kFloat32) / 255.0 - 0.2860) / 0.3530;
  return {x.view({set.size(), 1, 28, 28}), set.targets()};
}

/// The samples whose label is below `classes`.
Data first_classes(const Data& d, std::int64_t classes) {
  std::vector<std::int64_t> keep;
  const std::int64_t* y = d.y.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < d.y.size(0); ++i)
    if (y[i] < classes) keep.push_back(i);
  const kd::Tensor idx = kd::tensor(keep, {static_cast<std::int64_t>(keep.size())});
  return {d.x.index_select(0, idx), d.y.index_select(0, idx)};
}

/// `steps` steps of SGD on random batches of `batch` samples; returns the mean loss of the last 50.
/// The `frozen` stages stay in eval(): their BatchNorm keeps the running statistics it was pretrained
/// with instead of drifting towards the new batches' (chapter 9, "Transfer learning").
double train(kd::nn::Module& model, kd::optim::Optimizer& opt, const Data& d, std::int64_t steps,
             std::int64_t batch, const std::vector<kd::nn::Module*>& frozen = {}) {
  kd::nn::CrossEntropyLoss criterion;
  model.train();
  for (kd::nn::Module* m : frozen) m->eval();
  kd::Tensor order = kd::randperm(d.x.size(0));
  std::int64_t at = 0;
  double recent = 0;
  for (std::int64_t s = 0; s < steps; ++s) {
    if (at + batch > d.x.size(0)) {
      order = kd::randperm(d.x.size(0));
      at = 0;
    }
    const kd::Tensor idx = order.narrow(0, at, batch);
    at += batch;
    opt.zero_grad();
    kd::Tensor loss = criterion(model(d.x.index_select(0, idx)), d.y.index_select(0, idx));
    loss.backward();
    opt.step();
    if (s >= steps - 50) recent += loss.item<double>() / 50.0;
  }
  return recent;
}

double accuracy(kd::nn::Module& model, const Data& d) {
  kd::NoGradGuard no_grad;
  model.eval();
  std::int64_t right = 0;
  for (std::int64_t b = 0; b < d.x.size(0); b += 1000) {
    const std::int64_t n = std::min<std::int64_t>(1000, d.x.size(0) - b);
    right += model(d.x.narrow(0, b, n)).argmax(1).eq(d.y.narrow(0, b, n)).sum().item<std::int64_t>();
  }
  return static_cast<double>(right) / static_cast<double>(d.x.size(0));
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& k : v) s += (s.empty() ? "" : " ") + k;
  return s;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw kd::IOError("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

/// The checker's tensors `<prefix>.<key>.npy` for every key of `model`'s state_dict but the BatchNorm
/// counters, loaded into it.
void load_checker_weights(kd::nn::Module& model, const std::string& prefix) {
  kd::StateDict sd;
  for (const auto& [key, t] : model.state_dict())
    if (key.find("num_batches_tracked") == std::string::npos)
      sd.insert(key, kd::load_npy(prefix + "." + key + ".npy", kd::kFloat32));
  model.load_state_dict(sd, /*strict=*/false);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int run(const std::string& in, const std::string& out);
int main(int argc, char** argv) { return milestone::main_of(argc, argv, run); }

int run(const std::string& in, const std::string& out) {
  kd::manual_seed(0);
  const Data all = load(in);
  const Data source = first_classes(all, 5);
  constexpr std::int64_t kBatch = 64, kPretrainSteps = 300, kFineTuneSteps = 300;

  // 1. Pretraining: the source task, five classes.
  auto t = std::chrono::steady_clock::now();
  auto pretrained = std::make_shared<SmallResNet>(5);
  kd::optim::SGD pre_opt(pretrained->parameters(), {.lr = 0.05, .momentum = 0.9});
  double loss = train(*pretrained, pre_opt, source, kPretrainSteps, kBatch);
  std::printf("pretrained on 5 classes: loss %.3f (%.1f s)\n", loss, seconds_since(t));
  const kd::StateDict checkpoint = pretrained->state_dict();

  // 2. A new head for ten classes; everything else from the checkpoint (your ex3).
  auto model = std::make_shared<SmallResNet>(10);
  const models::TransferReport report = models::load_pretrained(*model, checkpoint);
  std::printf("load_pretrained: %zu keys loaded, mismatched: %s\n", report.loaded.size(),
              join(report.mismatched_keys).c_str());

  // 3. Fine-tuning: the stem frozen, the backbone at a tenth of the head's rate (your ex4).
  t = std::chrono::steady_clock::now();
  auto opt = models::fine_tuning_sgd(*model, {.head = "fc", .frozen = {"conv1", "bn1"}, .lr = 0.005, .head_lr = 0.05},
                                     {.momentum = 0.9});
  loss = train(*model, *opt, all, kFineTuneSteps, kBatch, {&model->conv1, &model->bn1});
  std::printf("fine-tuned on 10 classes: loss %.3f (%.1f s); training accuracy on 5,000 images %.2f %%\n", loss,
              seconds_since(t), 100 * accuracy(*model, {all.x.narrow(0, 0, 5000), all.y.narrow(0, 0, 5000)}));

  // The fine-tuned weights and BatchNorm's running statistics: the grader loads them into its own
  // network and evaluates it, in eval() mode, on the test images.
  for (const auto& [key, tensor] : model->state_dict())
    if (key.find("num_batches_tracked") == std::string::npos)
      kd::save_npy(tensor.to(kd::kFloat32), out + "/w." + key + ".npy");

  // ex1: the network's logits on the checker's probe images.
  {
    kd::NoGradGuard no_grad;
    model->eval();
    kd::save_npy((*model)(kd::load_npy(in + "/probe_x.npy", kd::kFloat32)), out + "/probe_logits.npy");
  }

  // ex2: two Bottleneck blocks of the checker's sizes and weights.
  for (int k = 0; k < 2; ++k) {
    const std::string p = in + "/bottleneck" + std::to_string(k);
    const kd::Tensor cfg = kd::load_npy(p + "_cfg.npy", kd::kInt64);  // inplanes, planes, stride
    const std::int64_t inplanes = cfg[0].item<std::int64_t>(), planes = cfg[1].item<std::int64_t>(),
                       stride = cfg[2].item<std::int64_t>();
    std::shared_ptr<kd::nn::Sequential> ds;
    if (stride != 1 || inplanes != planes * models::Bottleneck::expansion)
      ds = std::make_shared<kd::nn::Sequential>(
          kd::nn::Conv2d(inplanes, planes * 4, 1, {.stride = stride, .bias = false}), kd::nn::BatchNorm2d(planes * 4));
    models::Bottleneck block(inplanes, planes, stride, ds);
    load_checker_weights(block, p);
    const kd::Tensor x = kd::load_npy(p + "_x.npy", kd::kFloat32);
    kd::NoGradGuard no_grad;
    block.eval();
    kd::save_npy(block(x), out + "/bottleneck" + std::to_string(k) + "_eval.npy");
    block.train();
    kd::save_npy(block(x), out + "/bottleneck" + std::to_string(k) + "_train.npy");
  }

  // ex5: a squeeze-and-excitation gate of the checker's sizes and weights, with EfficientNet's SiLU.
  {
    const kd::Tensor cfg = kd::load_npy(in + "/se_cfg.npy", kd::kInt64);  // channels, squeeze channels
    kd::vision::ops::SqueezeExcitation se(cfg[0].item<std::int64_t>(), cfg[1].item<std::int64_t>(),
                                          kd::vision::ops::Activation::SiLU);
    load_checker_weights(se, in + "/se");
    kd::NoGradGuard no_grad;
    kd::save_npy(se(kd::load_npy(in + "/se_x.npy", kd::kFloat32)), out + "/se.npy");
  }

  // ex3: the checker's checkpoint (its keys, one .npy each) into a fresh ten-class network.
  {
    kd::StateDict ckpt;
    const std::vector<std::string> keys = read_lines(in + "/ckpt_keys.txt");
    for (std::size_t i = 0; i < keys.size(); ++i)
      ckpt.insert(keys[i], kd::load_npy(in + "/ckpt." + std::to_string(i) + ".npy", kd::kFloat32));
    SmallResNet fresh(10);
    const models::TransferReport r = models::load_pretrained(fresh, ckpt);
    std::ofstream f(out + "/transfer.txt");
    f << "loaded: " << join(r.loaded) << "\nmismatched: " << join(r.mismatched_keys) << "\nmissing: "
      << join(r.missing_keys) << "\nunexpected: " << join(r.unexpected_keys) << "\npretrained mismatched: "
      << join(report.mismatched_keys) << "\npretrained loaded: " << report.loaded.size() << "\n";
  }

  // ex4: the checker's frozen stages and rates, on a network whose every parameter was frozen before.
  {
    const std::vector<std::string> frozen = read_lines(in + "/groups_frozen.txt");
    const kd::Tensor lrs = kd::load_npy(in + "/groups_lrs.npy", kd::kFloat64);  // lr, head_lr
    SmallResNet fresh(10);
    fresh.requires_grad_(false);
    const auto groups = models::fine_tuning_groups(
        fresh, {.head = "fc", .frozen = frozen, .lr = lrs[0].item<double>(), .head_lr = lrs[1].item<double>()});
    std::ofstream f(out + "/groups.txt");
    for (const auto& g : groups) {
      char lr[64];
      std::snprintf(lr, sizeof lr, "%.17g", g.lr);
      f << "group " << lr << ": " << join(g.names) << "\n";
    }
    std::vector<std::string> trainable;
    for (const auto& [name, p] : fresh.named_parameters())
      if (p.requires_grad()) trainable.push_back(name);
    f << "requires_grad: " << join(trainable) << "\n";
  }
  std::printf("fine-tuned weights and the probes written to %s\n", out.c_str());
  return 0;
}
