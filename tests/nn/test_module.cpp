// nn::Module: registration, recursive walks with dotted names, modes, zero_grad, to(dtype), moves,
// printing (against PyTorch's print(model)) and the custom-module pattern with two branches.
#include <catch2/catch.hpp>
#include <kindling/nn.hpp>

#include "tensor/torch_oracle.hpp"

namespace kd = kindling;
namespace nn = kindling::nn;
using Catch::Contains;

namespace {

struct SimpleNet : nn::Module {
  nn::Linear fc1{784, 128};
  nn::ReLU relu;
  nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }
};

// The seed's two-path network: two branches over the same input, fused by concatenation.
struct TwoPathNet : nn::Module {
  nn::Sequential path_a{nn::Linear(6, 4), nn::Tanh()};
  nn::Sequential path_b{nn::Linear(6, 3), nn::ReLU(), nn::Dropout(0.5)};
  nn::Linear head{7, 2};
  TwoPathNet() {
    register_module("path_a", path_a);
    register_module("path_b", path_b);
    register_module("head", head);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return head(kd::cat({path_a(x), path_b(x)}, 1));  // [N, 4] ++ [N, 3] → [N, 7] → [N, 2]
  }
};

std::vector<std::string> names_of(const std::vector<std::pair<std::string, kd::Tensor>>& v) {
  std::vector<std::string> out;
  for (const auto& [n, t] : v) out.push_back(n);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

const char* kPySetup = R"(
import torch.nn as nn
class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128); self.relu = nn.ReLU(); self.fc2 = nn.Linear(128, 10)
class TwoPathNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.path_a = nn.Sequential(nn.Linear(6, 4), nn.Tanh())
        self.path_b = nn.Sequential(nn.Linear(6, 3), nn.ReLU(), nn.Dropout(0.5))
        self.head = nn.Linear(7, 2)
class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(6, 16, 3, stride=2, bias=False), nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(1))
        self.flatten = nn.Flatten()
        self.blocks = nn.ModuleList([nn.Linear(16, 16), nn.GELU()])
        self.norm = nn.LayerNorm(16, eps=1e-6)
        self.emb = nn.Embedding(10, 16)
        self.out = nn.Sequential(nn.Dropout(0.25), nn.Linear(16, 10), nn.Softmax(dim=1))
        self.bn1 = nn.BatchNorm1d(10, momentum=None, affine=False)
class SharedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(3, 3); self.act = nn.ReLU(); self.dec = self.enc  # one Linear under two names
def names(it): return ' '.join(n for n, _ in it)
def applied(m):
    seen = []
    m.apply(lambda x: seen.append(type(x).__name__))
    return ' '.join(seen)
)";

struct ConvNet : nn::Module {
  nn::Sequential features{nn::Conv2d(1, 6, 5, {.padding = 2}), nn::BatchNorm2d(6), nn::ReLU(), nn::MaxPool2d(2),
                          nn::Conv2d(6, 16, 3, {.stride = 2, .bias = false}), nn::AvgPool2d(2), nn::AdaptiveAvgPool2d(1)};
  nn::Flatten flatten;
  nn::ModuleList blocks{nn::Linear(16, 16), nn::GELU()};
  nn::LayerNorm norm{{16}, {.eps = 1e-6}};
  nn::Embedding emb{10, 16};
  nn::Sequential out{nn::Dropout(0.25), nn::Linear(16, 10), nn::Softmax(1)};
  nn::BatchNorm1d bn1{10, {.momentum = std::nullopt, .affine = false}};
  ConvNet() {
    register_module("features", features);
    register_module("flatten", flatten);
    register_module("blocks", blocks);
    register_module("norm", norm);
    register_module("emb", emb);
    register_module("out", out);
    register_module("bn1", bn1);
  }
};

}  // namespace

TEST_CASE("module: parameter, buffer and module names match PyTorch's, in registration order") {
  SimpleNet simple;
  TwoPathNet two;
  ConvNet conv;
  const auto py = kd::testing::python_eval(
      {"names(SimpleNet().named_parameters())", "names(TwoPathNet().named_parameters())",
       "names(ConvNet().named_parameters())", "names(ConvNet().named_buffers())",
       "names(ConvNet().named_modules())", "names(ConvNet().named_children())",
       "' '.join(ConvNet().state_dict().keys())", "sum(p.numel() for p in ConvNet().parameters())"},
      kPySetup);
  CHECK(joined(names_of(simple.named_parameters())) == py[0]);
  CHECK(joined(names_of(two.named_parameters())) == py[1]);
  CHECK(joined(names_of(conv.named_parameters())) == py[2]);
  CHECK(joined(names_of(conv.named_buffers())) == py[3]);
  std::vector<std::string> mods;
  for (auto& [n, m] : conv.named_modules()) mods.push_back(n);
  // PyTorch names the root module "" — drop it from both sides.
  mods.erase(mods.begin());
  CHECK(joined(mods) == py[4].substr(py[4].find_first_not_of(' ')));
  std::vector<std::string> kids;
  for (auto& [n, m] : conv.named_children()) kids.push_back(n);
  CHECK(joined(kids) == py[5]);
  CHECK(joined(conv.state_dict().keys()) == py[6]);
  CHECK(std::to_string(conv.num_parameters()) == py[7]);
  CHECK(conv.parameters().size() == conv.named_parameters().size());
  CHECK(simple.parameters(/*recurse=*/false).empty());
  CHECK(simple.fc1.parameters()[0].is_same(simple.fc1.weight));  // handles, not copies
}

namespace {
struct SharedNet : nn::Module {
  nn::Linear enc{3, 3};
  nn::ReLU act;
  SharedNet() {
    register_module("enc", enc);
    register_module("act", act);
    register_module("dec", enc);  // weight tying: one module, two names
  }
  kd::Tensor forward(const kd::Tensor& x) override { return enc(act(enc(x))); }
};
}  // namespace

TEST_CASE("module: a child registered under two names is one child, but both names are saved") {
  SharedNet net;
  const auto py = kd::testing::python_eval(
      {"names(SharedNet().named_children())", "names(SharedNet().named_modules())",
       "' '.join(SharedNet().state_dict().keys())", "names(SharedNet().named_parameters())",
       "applied(SharedNet())", "str(len(list(SharedNet().children())))"},
      kPySetup);
  std::vector<std::string> kids, mods, applied;
  for (auto& [n, m] : net.named_children()) kids.push_back(n);
  CHECK(joined(kids) == py[0]);
  for (auto& [n, m] : net.named_modules()) mods.push_back(n);
  mods.erase(mods.begin());  // the root's "" on both sides
  CHECK(joined(mods) == py[1].substr(py[1].find_first_not_of(' ')));
  CHECK(joined(net.state_dict().keys()) == py[2]);
  CHECK(joined(names_of(net.named_parameters())) == py[3]);
  net.apply([&](nn::Module& m) { applied.push_back(m.type_name()); });
  CHECK(joined(applied) == py[4]);
  CHECK(std::to_string(net.children().size()) == py[5]);
  // The tied copy loads from either key's value: both keys name the same tensors.
  kd::StateDict sd = net.state_dict();
  net.load_state_dict(sd);
  net.eval();
  CHECK_FALSE(net.enc.is_training());
}

TEST_CASE("module: print(model) is byte-for-byte PyTorch's") {
  SimpleNet simple;
  TwoPathNet two;
  ConvNet conv;
  nn::Sequential empty_seq;
  const auto py = kd::testing::python_eval(
      {"repr(SimpleNet())", "repr(TwoPathNet())", "repr(ConvNet())", "repr(nn.Sequential())",
       "repr(nn.Conv2d(2, 4, (3, 1), stride=2, padding=1, dilation=2, groups=2, bias=False))",
       "repr(nn.MaxPool2d((2, 3), stride=1, padding=1, ceil_mode=True))",
       "repr(nn.AvgPool2d(3, 1, 1, ceil_mode=True, count_include_pad=False))",
       "repr(nn.AdaptiveAvgPool2d((2, 3)))", "repr(nn.LayerNorm([2, 3], elementwise_affine=False))",
       "repr(nn.BatchNorm1d(3, eps=1e-3, momentum=0.01, track_running_stats=False))", "repr(nn.Dropout(0.125))",
       "repr(nn.GELU(approximate='tanh'))", "repr(nn.Linear(3, 2, bias=False))", "repr(nn.Identity())",
       "repr(nn.LogSoftmax(dim=-1))", "repr(nn.LeakyReLU())", "repr(nn.LeakyReLU(0.2))", "repr(nn.SiLU())",
       "repr(nn.ELU(alpha=0.5))", "repr(nn.Softplus())", "repr(nn.Softplus(beta=0.5, threshold=10))",
       "repr(nn.Conv1d(3, 5, 4, padding='same'))",
       "repr(nn.Conv1d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False))",
       "repr(nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1))", "repr(nn.Conv2d(3, 8, 3, padding='same'))",
       "repr(nn.Upsample(scale_factor=2))", "repr(nn.Upsample(size=(4, 5), mode='bilinear'))"},
      kPySetup);
  CHECK(simple.to_string() == py[0]);
  CHECK(two.to_string() == py[1]);
  CHECK(conv.to_string() == py[2]);
  CHECK(empty_seq.to_string() == py[3]);
  CHECK(nn::Conv2d(2, 4, {3, 1}, {.stride = 2, .padding = 1, .dilation = 2, .groups = 2, .bias = false}).to_string() == py[4]);
  CHECK(nn::MaxPool2d({2, 3}, {.stride = 1, .padding = 1, .ceil_mode = true}).to_string() == py[5]);
  CHECK(nn::AvgPool2d(3, {.stride = 1, .padding = 1, .ceil_mode = true, .count_include_pad = false}).to_string() == py[6]);
  CHECK(nn::AdaptiveAvgPool2d({2, 3}).to_string() == py[7]);
  CHECK(nn::LayerNorm({2, 3}, {.elementwise_affine = false}).to_string() == py[8]);
  CHECK(nn::BatchNorm1d(3, {.eps = 1e-3, .momentum = 0.01, .track_running_stats = false}).to_string() == py[9]);
  CHECK(nn::Dropout(0.125).to_string() == py[10]);
  CHECK(nn::GELU("tanh").to_string() == py[11]);
  CHECK(nn::Linear(3, 2, {.bias = false}).to_string() == py[12]);
  CHECK(nn::Identity().to_string() == py[13]);
  CHECK(nn::LogSoftmax(-1).to_string() == py[14]);
  CHECK(nn::LeakyReLU().to_string() == py[15]);
  CHECK(nn::LeakyReLU(0.2).to_string() == py[16]);
  CHECK(nn::SiLU().to_string() == py[17]);
  CHECK(nn::ELU(0.5).to_string() == py[18]);
  CHECK(nn::Softplus().to_string() == py[19]);
  CHECK(nn::Softplus(0.5, 10).to_string() == py[20]);
  CHECK(nn::Conv1d(3, 5, 4, {.padding = "same"}).to_string() == py[21]);
  CHECK(nn::Conv1d(2, 4, 3, {.stride = 2, .padding = 1, .dilation = 2, .groups = 2, .bias = false}).to_string() == py[22]);
  CHECK(nn::ConvTranspose2d(4, 2, 3, {.stride = 2, .padding = 1, .output_padding = 1}).to_string() == py[23]);
  CHECK(nn::Conv2d(3, 8, 3, {.padding = "same"}).to_string() == py[24]);
  CHECK(nn::Upsample({.scale_factor = {2}}).to_string() == py[25]);
  CHECK(nn::Upsample({.size = {4, 5}, .mode = "bilinear"}).to_string() == py[26]);
  std::ostringstream os;
  os << simple;
  CHECK(os.str() == py[0]);
}

TEST_CASE("module: registration refuses bad and duplicate names") {
  struct Net : nn::Module {
    nn::Linear fc{2, 2};
  } net;
  net.register_module("fc", net.fc);
  CHECK_THROWS_WITH(net.register_module("fc", net.fc), Contains("'fc' is already registered"));
  CHECK_THROWS_WITH(net.register_parameter("fc", kd::zeros({2})), Contains("already registered"));
  CHECK_THROWS_WITH(net.register_parameter("a.b", kd::zeros({2})), Contains("must not contain '.'"));
  CHECK_THROWS_WITH(net.register_parameter("", kd::zeros({2})), Contains("must not be empty"));
  CHECK_THROWS_AS(net.register_parameter("i", kd::zeros({2}, {.dtype = kd::kInt64})), kd::DTypeError);
  CHECK_THROWS_WITH(net.register_module("self", net), Contains("its own child"));
  // A buffer does not require grad; a parameter does.
  const kd::Tensor b = net.register_buffer("steps", kd::zeros({1}));
  const kd::Tensor p = net.register_parameter("scale", kd::ones({1}));
  CHECK_FALSE(b.requires_grad());
  CHECK(p.requires_grad());
}

TEST_CASE("module: train()/eval() reach every descendant") {
  ConvNet net;
  for (nn::Module* m : net.modules()) CHECK(m->is_training());
  net.eval();
  for (nn::Module* m : net.modules()) CHECK_FALSE(m->is_training());
  net.train();
  for (nn::Module* m : net.modules()) CHECK(m->is_training());
  net.out.train(false);
  CHECK_FALSE(net.out[0].is_training());
  CHECK(net.features[0].is_training());
}

TEST_CASE("module: zero_grad zeroes in place by default (torch 1.13) and can drop the grads") {
  SimpleNet net;
  kd::Tensor x = kd::randn({4, 784});
  net(x).sum().backward();
  const kd::Tensor g = net.fc1.weight.grad();
  REQUIRE(g.defined());
  REQUIRE(g.abs().sum().item<double>() > 0);
  net.zero_grad();
  CHECK(net.fc1.weight.grad().is_same(g));  // the same tensor, now zero
  CHECK(g.abs().sum().item<double>() == 0);
  net(x).sum().backward();
  net.zero_grad(/*set_to_none=*/true);
  for (const kd::Tensor& p : net.parameters()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("module: to(dtype) converts in place and keeps every Tensor handle valid") {
  ConvNet net;
  const std::vector<kd::Tensor> before = net.parameters();
  const kd::Tensor w0 = net.norm.weight.clone();
  net.to(kd::kFloat64);
  const std::vector<kd::Tensor> after = net.parameters();
  REQUIRE(before.size() == after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK(before[i].is_same(after[i]));  // an optimizer holding `before` sees the converted tensors
    CHECK(before[i].dtype() == kd::kFloat64);
    CHECK(before[i].requires_grad());
    CHECK(before[i].is_leaf());
  }
  CHECK(kd::allclose(net.norm.weight, w0.to(kd::kFloat64)));
  CHECK(net.bn1.running_mean.dtype() == kd::kFloat64);
  CHECK(net.bn1.num_batches_tracked.dtype() == kd::kInt64);  // integer buffers stay as they are
  // The converted model runs in float64 end to end.
  SimpleNet simple;
  simple.to(kd::kFloat64);
  const kd::Tensor y = simple(kd::randn({2, 784}, {.dtype = kd::kFloat64}));
  CHECK(y.dtype() == kd::kFloat64);
  CHECK_THROWS_AS(simple(kd::randn({2, 784})), kd::DTypeError);  // float32 input into a float64 model
  CHECK_THROWS_AS(simple.to(kd::kInt64), kd::DTypeError);
}

TEST_CASE("module: apply visits children first, then the module itself") {
  ConvNet net;
  std::vector<std::string> order;
  net.apply([&](nn::Module& m) { order.push_back(m.type_name()); });
  REQUIRE(!order.empty());
  CHECK(order.back() == "ConvNet");
  CHECK(order.front() == "Conv2d");
  // The usual use: re-initialise every Linear.
  net.apply([](nn::Module& m) {
    if (auto* lin = dynamic_cast<nn::Linear*>(&m)) nn::init::zeros_(lin->weight);
  });
  CHECK(net.out.at<nn::Linear>(1).weight.abs().sum().item<double>() == 0);
}

TEST_CASE("module: leaf layers and containers move, modules with member children refuse") {
  nn::Linear a(3, 2);
  const kd::Tensor w = a.weight;
  nn::Linear b(std::move(a));
  CHECK(b.weight.is_same(w));
  CHECK(b.named_parameters().size() == 2);
  CHECK(b.parameters()[0].is_same(w));
  nn::Sequential seq(nn::Linear(3, 2), nn::ReLU());
  nn::Sequential moved(std::move(seq));
  CHECK(moved.size() == 2);
  CHECK(moved.named_parameters().size() == 2);
  SimpleNet net;
  CHECK_THROWS_WITH(SimpleNet(std::move(net)), Contains("registered the member 'fc1' by reference"));
  CHECK(net.named_parameters().size() == 4);  // the refused move left it intact
  // A module with member children goes into a container through a shared_ptr.
  nn::Sequential outer(std::make_shared<SimpleNet>(), nn::Softmax(1));
  CHECK(outer.named_parameters()[0].first == "0.fc1.weight");
  CHECK(outer(kd::randn({2, 784})).shape() == kd::Shape{2, 10});
}

TEST_CASE("module: Sequential and ModuleList indexing, append and errors") {
  nn::Sequential seq(nn::Linear(4, 3), nn::ReLU());
  seq.push_back(nn::Linear(3, 2));
  seq.append(nn::Sigmoid());
  CHECK(seq.size() == 4);
  CHECK(seq[-1].type_name() == "Sigmoid");
  CHECK(seq.at<nn::Linear>(2).out_features == 2);
  CHECK_THROWS_AS(seq[4], kd::IndexError);
  CHECK_THROWS_WITH(seq.at<nn::Linear>(1), Contains("is a ReLU, not a"));
  const kd::Tensor y = seq(kd::randn({5, 4}));
  CHECK(y.shape() == kd::Shape{5, 2});
  nn::ModuleList list(nn::Linear(2, 2), nn::Tanh());
  int n = 0;
  for (nn::Module& m : list) n += m.type_name().empty() ? 0 : 1;
  CHECK(n == 2);
  CHECK_THROWS_AS(list(kd::randn({1, 2})), kd::NotImplemented);
  struct NoForward : nn::Module {};
  NoForward nf;
  CHECK_THROWS_WITH(nf(kd::randn({1})), Contains("NoForward: forward(const Tensor&) is not implemented"));
}

TEST_CASE("module: the two-path network runs forward and backward through both branches") {
  kd::manual_seed(0);
  TwoPathNet net;
  const kd::Tensor x = kd::randn({5, 6});
  const kd::Tensor y = net(x);
  CHECK(y.shape() == kd::Shape{5, 2});
  y.sum().backward();
  for (const auto& [name, p] : net.named_parameters()) {
    INFO(name);
    REQUIRE(p.grad().defined());
    CHECK(p.grad().shape() == p.shape());
  }
  CHECK(net.path_a[0].as<nn::Linear>().weight.grad().abs().sum().item<double>() > 0);
  CHECK(net.head.weight.grad().abs().sum().item<double>() > 0);
  // eval() switches the Dropout in path_b off: two evaluations agree exactly.
  net.eval();
  kd::NoGradGuard no_grad;
  CHECK(kd::equal(net(x), net(x)));
}

TEST_CASE("module: a layer names both devices when parameters and input disagree") {
  // No GPU until chapter 8: a stand-in "cuda" allocator (plain malloc) is enough to make a tensor
  // whose storage claims another device, and to see the error before any kernel would run.
  kd::memory::register_allocator(kd::DeviceType::CUDA, {[](std::size_t n) { return std::malloc(std::max<std::size_t>(n, 1)); },
                                                        [](void* p) { std::free(p); }});
  const kd::Device fake_gpu{kd::DeviceType::CUDA, 0};
  auto on_fake_gpu = [&](const kd::Shape& shape) {
    auto impl = std::make_shared<kd::TensorImpl>();
    impl->storage = std::make_shared<kd::Storage>(static_cast<std::size_t>(kd::numel_of(shape)) * 4, fake_gpu);
    impl->shape = shape;
    impl->strides = kd::contiguous_strides(shape);
    return kd::Tensor(impl);
  };
  const kd::Tensor x = on_fake_gpu({2, 3});
  REQUIRE(x.device() == fake_gpu);
  nn::Linear fc(3, 2);
  CHECK_THROWS_AS(fc(x), kd::DeviceError);
  CHECK_THROWS_WITH(fc(x), Contains("expected all tensors to be on the same device") && Contains("cuda:0") &&
                               Contains("cpu"));
  nn::Conv2d conv(1, 1, 1);
  CHECK_THROWS_WITH(conv(on_fake_gpu({1, 1, 2, 2})), Contains("cuda:0") && Contains("cpu"));
  CHECK_THROWS_AS(kd::load("unused.safetensors", fake_gpu), kd::DeviceError);
}
