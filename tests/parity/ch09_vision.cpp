// Chapter 9 parity: the Kindling twin of every case in ch09_vision.py. The weights and print(model)
// texts were written by the oracle into <oracle dir>/weights/ (see the .py file).
#include <kindling/vision.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "parity.hpp"

namespace {
using kd::Tensor;
namespace models = kd::vision::models;

const std::map<std::string, std::int64_t> kNumClasses = {{"resnet18", 10}, {"resnet34", 7}, {"resnet50", 5},
                                                         {"vgg11_bn", 6}, {"mobilenet_v2", 8}, {"efficientnet_b0", 9}};

std::string weights(const std::string& name, const char* ext) {
  return parity::oracle_dir() + "/weights/" + name + ext;
}

// One model per name for the whole run (VGG-11 alone is 130 M parameters): each case loads the
// weights again, strictly, so what an earlier case changed (running statistics) is undone.
std::shared_ptr<kd::nn::Module> loaded_ptr(const std::string& name) {
  static std::map<std::string, std::shared_ptr<kd::nn::Module>> cache;
  static std::map<std::string, kd::StateDict> files;  // read once: VGG-11's is 530 MB
  auto& m = cache[name];
  if (!m) {
    m = models::get_model(name, kNumClasses.at(name));
    files.emplace(name, kd::load(weights(name, ".safetensors")));
  }
  m->load_state_dict(files.at(name), /*strict=*/true);
  return m;
}
kd::nn::Module& loaded(const std::string& name) { return *loaded_ptr(name); }

Tensor evaluate(const std::string& name, const Tensor& x) {
  kd::nn::Module& m = loaded(name);
  m.eval();
  kd::NoGradGuard no_grad;
  return m(x);
}

parity::Outputs train_step(const std::string& name, const Tensor& x) {
  kd::nn::Module& m = loaded(name);
  m.train();
  // Set to 0 for this case and put back after it: the model is shared with the print case.
  std::vector<std::pair<double*, double>> saved;
  for (kd::nn::Module* mod : m.modules()) {
    if (auto* d = dynamic_cast<kd::nn::Dropout*>(mod)) saved.emplace_back(&d->p, d->p);
    if (auto* s = dynamic_cast<kd::vision::ops::StochasticDepth*>(mod)) saved.emplace_back(&s->p, s->p);
  }
  for (auto& [p, v] : saved) *p = 0.0;
  Tensor out;
  {
    kd::NoGradGuard no_grad;
    out = m(x);
  }
  std::vector<Tensor> means, vars, counts;
  for (kd::nn::Module* mod : m.modules()) {
    if (auto* b = dynamic_cast<kd::nn::BatchNorm2d*>(mod)) {
      means.push_back(b->running_mean);
      vars.push_back(b->running_var);
      counts.push_back(b->num_batches_tracked);
    }
  }
  m.eval();
  for (auto& [p, v] : saved) *p = v;
  return {out, kd::cat(means, 0), kd::cat(vars, 0), kd::stack(counts, 0)};
}

// The printed tree, compared here line by line for a readable failure, then byte for byte by the
// harness.
Tensor printed(const std::string& name) {
  const std::string got = loaded(name).to_string();
  std::ifstream f(weights(name, ".txt"));
  std::stringstream want;
  want << f.rdbuf();
  std::istringstream g(got), w(want.str());
  std::string gl, wl;
  for (int line = 1;; ++line) {
    const bool gok = static_cast<bool>(std::getline(g, gl)), wok = static_cast<bool>(std::getline(w, wl));
    if (!gok && !wok) break;
    if (gok != wok || gl != wl)
      throw kd::ValueError("print(" + name + ") differs at line " + std::to_string(line) + ":\n  kindling: " +
                           (gok ? gl : "<end>") + "\n  pytorch:  " + (wok ? wl : "<end>"));
  }
  Tensor t = kd::empty({static_cast<std::int64_t>(got.size())}, {.dtype = kd::kUInt8});
  std::copy(got.begin(), got.end(), t.data_ptr<std::uint8_t>());
  return t;
}
}  // namespace

#define ZOO_CASES(NAME, TRAIN)                                                   \
  PARITY_CASE(NAME "/print") { return printed(NAME); }                           \
  PARITY_CASE(NAME "/eval-32") { return evaluate(NAME, in["x"]); }               \
  PARITY_CASE(NAME "/train-" TRAIN) { return train_step(NAME, in["x"]); }

ZOO_CASES("resnet18", "64")
ZOO_CASES("resnet34", "64")
ZOO_CASES("resnet50", "64")
ZOO_CASES("vgg11_bn", "32")
ZOO_CASES("mobilenet_v2", "64")
ZOO_CASES("efficientnet_b0", "64")

PARITY_CASE("resnet18/eval-224") { return evaluate("resnet18", in["x"]); }

PARITY_CASE("resnet18/feature-extractor") {
  auto model = models::resnet18({.num_classes = 10});
  model->load_state_dict(kd::load(weights("resnet18", ".safetensors")));
  model->eval();
  auto body = kd::vision::create_feature_extractor(model, {"layer1", "layer2", "layer3", "layer4"});
  kd::NoGradGuard no_grad;
  auto f = body(in["x"]);
  return {f.at("layer1"), f.at("layer2"), f.at("layer3"), f.at("layer4")};
}

// Every stage's feature map (the twin of STAGES in the .py file).
parity::Outputs stages(const std::string& name, const Tensor& x, std::vector<std::string> nodes) {
  auto model = loaded_ptr(name);
  model->eval();
  auto body = kd::vision::create_feature_extractor(model, nodes);
  kd::NoGradGuard no_grad;
  auto f = body(x);
  std::vector<Tensor> out;
  for (const auto& n : nodes) out.push_back(f.at(n));
  return out;
}

PARITY_CASE("resnet50/stages") { return stages("resnet50", in["x"], {"layer1", "layer2", "layer3", "layer4"}); }
PARITY_CASE("vgg11_bn/stages") {
  return stages("vgg11_bn", in["x"], {"features.3", "features.7", "features.14", "features.21", "features.28"});
}
PARITY_CASE("mobilenet_v2/stages") {
  return stages("mobilenet_v2", in["x"], {"features.1", "features.3", "features.6", "features.13", "features.18"});
}
PARITY_CASE("efficientnet_b0/stages") {
  return stages("efficientnet_b0", in["x"], {"features.1", "features.2", "features.3", "features.5", "features.8"});
}

PARITY_CASE("resnet18/new-head-frozen") {
  auto model = models::resnet18({.num_classes = 10});
  model->load_state_dict(kd::load(weights("resnet18", ".safetensors")));
  model->eval();
  for (Tensor& p : model->parameters()) p.requires_grad_(false);
  model->fc = kd::nn::Linear(512, 3);
  {
    kd::NoGradGuard no_grad;
    model->fc->weight.copy_(in["w"]);
    model->fc->bias.copy_(in["b"]);
  }
  Tensor out = (*model)(in["x"]);
  out.backward(kd::ones_like(out));
  return {out.detach(), model->fc->weight.grad(), model->fc->bias.grad(),
          kd::scalar_tensor(model->num_parameters(/*only_trainable=*/true), {.dtype = kd::kInt64})};
}

PARITY_CASE("resnet18/load-wrong-num-classes") {
  auto model = models::resnet18({.num_classes = 4});
  model->load_state_dict(kd::load(weights("resnet18", ".safetensors")));
  return (*model)(in["x"]);
}

PARITY_CASE("resnet34/load-resnet18-weights") {
  auto model = models::resnet34({.num_classes = 10});
  model->load_state_dict(kd::load(weights("resnet18", ".safetensors")));
  return (*model)(in["x"]);
}

PARITY_CASE("ops/squeeze-excitation-print") {
  const std::string got = kd::vision::ops::SqueezeExcitation(8, 2).to_string();
  Tensor t = kd::empty({static_cast<std::int64_t>(got.size())}, {.dtype = kd::kUInt8});
  std::copy(got.begin(), got.end(), t.data_ptr<std::uint8_t>());
  return t;
}
