// kd::onnx::export_model on the layers of chapters 3-9 and the model zoo: each model is exported at
// batch 2, imported again with kd::onnx::load, and run at batches 2 and 3 (the batch dimension is
// dynamic): the imported graph must give the eager model's outputs. The files are left in OUT_DIR for
// check_onnx_export.py, which runs ONNX's own checker (full_check) and shape inference on each.
//   onnx_export_models OUT_DIR
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>

#include "kindling/jit.hpp"

namespace kd = kindling;
namespace nn = kd::nn;
namespace F = kd::nn::functional;

namespace {

struct SimpleNet : nn::Module {  // chapter 3: functional relu and flatten between two layers
  nn::Linear fc1{784, 64}, fc2{64, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(F::relu(fc1(x.flatten(1)))); }
};

struct Residual : nn::Module {  // chapter 9's shortcut: conv-bn-relu-conv-bn, plus x, relu
  nn::Conv2d c1{8, 8, 3, {.padding = 1, .bias = false}}, c2{8, 8, 3, {.padding = 1, .bias = false}};
  nn::BatchNorm2d b1{8}, b2{8};
  nn::ReLU relu;
  Residual() {
    register_module("conv1", c1);
    register_module("bn1", b1);
    register_module("conv2", c2);
    register_module("bn2", b2);
    register_module("relu", relu);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return relu(b2(c2(relu(b1(c1(x))))) + x);
  }
};

struct MlpBlock : nn::Module {  // tokens [B, L, E]: Linear → GELU → Linear, LayerNorm, residual, tensor ops
  nn::Linear up{16, 32}, down{32, 16};
  nn::GELU gelu{"tanh"};
  nn::GELU gelu_erf;
  nn::LayerNorm norm{kd::Shape{16}};
  MlpBlock() {
    register_module("up", up);
    register_module("gelu", gelu);
    register_module("gelu_erf", gelu_erf);
    register_module("down", down);
    register_module("norm", norm);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = x + down(gelu_erf(gelu(up(norm(x))))) * 0.5;
    kd::Tensor pooled = h.mean(std::vector<std::int64_t>{1}, true);        // [B, 1, E]
    kd::Tensor mixed = kd::matmul(h, h.transpose(1, 2)).softmax(-1);      // [B, L, L]
    kd::Tensor out = kd::matmul(mixed, h) - pooled.expand(h.shape());      // [B, L, E]
    out = kd::cat({out, h.sigmoid(), h.tanh().clamp(-0.5, 0.5)}, -1);     // [B, L, 3E]
    return out.permute({0, 2, 1}).unsqueeze(1).squeeze(1).sum(std::vector<std::int64_t>{2}).pow(2.0).sqrt();
  }
};

struct Tokens : nn::Module {  // an int64 input: Embedding, then a slice, select and a LogSoftmax head
  nn::Embedding emb{50, 12};
  nn::Linear head{12, 7};
  nn::LogSoftmax log_softmax{-1};
  Tokens() {
    register_module("emb", emb);
    register_module("head", head);
    register_module("log_softmax", log_softmax);
  }
  kd::Tensor forward(const kd::Tensor& ids) override {
    kd::Tensor e = emb(ids);                        // [B, L, 12]
    kd::Tensor first = e.select(1, 0);              // [B, 12]
    kd::Tensor rest = e.slice(1, 1, 4).mean(std::vector<std::int64_t>{1});
    return log_softmax(head(first + rest));
  }
};

struct Signal : nn::Module {  // Conv1d over [B, C, L], BatchNorm1d, and a ConvTranspose2d decoder
  nn::Conv1d c1{2, 6, 5, {.stride = 2, .padding = 2}}, c2{6, 6, 3, {.padding = "same", .dilation = 2, .groups = 3}};
  nn::BatchNorm1d bn{6};
  nn::ConvTranspose2d up{6, 4, 3, {.stride = 2, .padding = 1, .output_padding = 1}};
  nn::ConvTranspose2d up2{4, 2, {2, 3}, {.stride = {2, 1}, .groups = 2, .dilation = {1, 2}}};
  Signal() {
    register_module("c1", c1);
    register_module("c2", c2);
    register_module("bn", bn);
    register_module("up", up);
    register_module("up2", up2);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = bn(c2(c1(x)).relu());   // [B, 6, 8]
    h = h.view({h.size(0), 6, 2, 4});      // [B, 6, 2, 4]
    return up2(up(h).tanh());              // [B, 2, 8, 12]
  }
};

std::shared_ptr<nn::Sequential> cnn() {  // chapter 5's CNN with every pooling and activation kind
  auto s = std::make_shared<nn::Sequential>();
  s->push_back(std::make_shared<nn::Conv2d>(1, 8, 3, nn::Conv2dOptions{.padding = 1}));
  s->push_back(std::make_shared<nn::BatchNorm2d>(8));
  s->push_back(std::make_shared<nn::ReLU>());
  s->push_back(std::make_shared<nn::MaxPool2d>(2));
  s->push_back(std::make_shared<nn::Conv2d>(8, 16, 3, nn::Conv2dOptions{.stride = 2, .padding = "valid", .groups = 2}));
  s->push_back(std::make_shared<nn::LeakyReLU>(0.1));
  s->push_back(std::make_shared<nn::Conv2d>(16, 16, 3, nn::Conv2dOptions{.padding = "same", .dilation = 2}));
  s->push_back(std::make_shared<nn::SiLU>());
  s->push_back(std::make_shared<nn::AvgPool2d>(2, nn::AvgPool2dOptions{.padding = 1, .count_include_pad = false}));
  s->push_back(std::make_shared<nn::ELU>(0.7));
  s->push_back(std::make_shared<nn::Dropout>(0.3));
  s->push_back(std::make_shared<nn::AdaptiveAvgPool2d>(1));
  s->push_back(std::make_shared<nn::Flatten>());
  s->push_back(std::make_shared<nn::Linear>(16, 10));
  s->push_back(std::make_shared<nn::Hardswish>());
  s->push_back(std::make_shared<nn::ReLU6>());
  s->push_back(std::make_shared<nn::Softmax>(1));
  return s;
}

/// BatchNorm statistics that are not 0 and 1, so that exporting them wrong shows.
void perturb(nn::Module& m) {
  kd::NoGradGuard no_grad;
  kd::manual_seed(3);
  for (auto& [name, t] : m.named_buffers()) {
    if (name.ends_with("running_mean")) t.copy_(kd::randn(t.shape()) * 0.2);
    if (name.ends_with("running_var")) t.copy_(kd::rand(t.shape()) + 0.5);
  }
}

int failures = 0;

void check(const std::string& name, nn::Module& model, const std::function<kd::Tensor(std::int64_t)>& make,
           const std::filesystem::path& dir, double rtol = 1e-4, double atol = 1e-5) {
  perturb(model);
  model.eval();
  const auto path = dir / (name + ".onnx");
  kd::onnx::export_model(model, make(2), path);
  auto imported = kd::onnx::load(path);
  for (std::int64_t batch : {2, 3}) {
    const kd::Tensor x = make(batch);
    kd::NoGradGuard no_grad;
    const kd::Tensor want = model(x), got = (*imported)(x);
    const bool same_shape = want.shape() == got.shape();
    const bool close = same_shape && kd::allclose(got, want, rtol, atol);
    std::printf("%-16s batch %lld: %s %s\n", name.c_str(), static_cast<long long>(batch),
                kd::shape_str(got.shape()).c_str(), close ? "ok" : "MISMATCH");
    if (!close) {
      ++failures;
      if (same_shape) std::printf("  max |diff| = %g\n", (got - want).abs().max().item<double>());
    }
  }
  // The imported graph is made of Kindling ops: it trains. The gradients of a loss with respect to
  // every parameter (initializers keep their state_dict names) and to a float input equal eager's.
  const kd::Tensor x = make(3);
  const bool float_input = kd::is_floating_point(x.dtype());
  const kd::Tensor xe = x.detach().requires_grad_(float_input), xi = x.detach().requires_grad_(float_input);
  const kd::Tensor ye = model(xe);
  const kd::Tensor weights = kd::randn(ye.shape());
  model.zero_grad();
  (ye * weights).sum().backward();
  (((*imported)(xi)) * weights).sum().backward();
  std::map<std::string, kd::Tensor> imported_params;
  for (auto& [key, t] : imported->named_parameters()) imported_params[key] = t;
  int compared = 0, wrong = 0;
  for (auto& [key, t] : model.named_parameters()) {
    std::string reg = key;  // the importer registers "fc1.weight" as "fc1_weight" (Module names have no dots)
    for (char& c : reg)
      if (c == '.') c = '_';
    auto it = imported_params.find(reg);
    if (it == imported_params.end() || !t.grad().defined() || !it->second.grad().defined()) {
      std::printf("  parameter %s: %s\n", key.c_str(), it == imported_params.end() ? "not in the file" : "no gradient");
      ++wrong;
      continue;
    }
    ++compared;
    if (!kd::allclose(it->second.grad(), t.grad(), rtol * 10, atol * 10)) {
      std::printf("  parameter %s: gradients differ by %g\n", key.c_str(),
                  (it->second.grad() - t.grad()).abs().max().item<double>());
      ++wrong;
    }
  }
  if (float_input && !kd::allclose(xi.grad(), xe.grad(), rtol * 10, atol * 10)) {
    std::printf("  the input's gradients differ\n");
    ++wrong;
  }
  std::printf("%-16s gradients of %d parameters%s: %s\n", name.c_str(), compared,
              float_input ? " and the input" : "", wrong ? "MISMATCH" : "ok");
  failures += wrong;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: onnx_export_models OUT_DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  kd::manual_seed(0);
  auto images = [](std::int64_t c, std::int64_t hw) {
    return [c, hw](std::int64_t b) { return kd::randn({b, c, hw, hw}); };
  };
  try {
    SimpleNet simplenet;
    check("simplenet", simplenet, images(1, 28), dir);
    check("cnn", *cnn(), images(1, 28), dir);
    Signal signal;
    check("signal", signal, [](std::int64_t b) { return kd::randn({b, 2, 16}); }, dir);
    Residual residual;
    check("residual", residual, images(8, 10), dir);
    MlpBlock mlp;
    check("mlp_block", mlp, [](std::int64_t b) { return kd::randn({b, 5, 16}); }, dir);
    Tokens tokens;
    check("tokens", tokens, [](std::int64_t b) { return kd::randint(0, 50, {b, 6}); }, dir);
    namespace models = kd::vision::models;
    check("resnet18", *models::resnet18({.num_classes = 10}), images(3, 64), dir, 1e-3, 1e-4);
    check("mobilenet_v2", *models::mobilenet_v2({.num_classes = 10}), images(3, 64), dir, 1e-3, 1e-4);
    check("efficientnet_b0", *models::efficientnet_b0({.num_classes = 10}), images(3, 64), dir, 1e-3, 1e-4);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  std::printf("%d mismatches\n", failures);
  return failures == 0 ? 0 : 1;
}
