// The doctor: every finding is triggered by its planted fault, and a healthy setup (chapter 5's
// SimpleNet on a Fashion-MNIST batch, Adam 1e-3) gets none.
#include <catch2/catch.hpp>
#include <kindling/kindling.hpp>

#include <cmath>

namespace kd = kindling;
using kd::Tensor;
namespace dbg = kd::debug;

namespace {

struct SimpleNet : kd::nn::Module {  // chapter 5's
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  bool softmax = false, detach = false, log_of_negative = false;
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = relu(fc1(x.view({x.size(0), 784})));
    if (detach) h = h.detach();  // planted: stops the gradient
    Tensor out = fc2(h);
    if (log_of_negative) out = (out - 1000.0).log();  // planted: NaN on any input
    return softmax ? out.softmax(1) : out;
  }
};

struct DropNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 64};
  kd::nn::ReLU relu;
  kd::nn::Dropout drop{0.5};
  kd::nn::Linear fc2{64, 10};
  DropNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("drop", drop);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) override { return fc2(drop(relu(fc1(x.view({x.size(0), 784}))))); }
};

struct SmallCNN : kd::nn::Module {  // chapter 5's CNN
  kd::nn::Conv2d conv1{1, 16, 3, {.padding = 1}};
  kd::nn::Conv2d conv2{16, 32, 3, {.padding = 1}};
  kd::nn::MaxPool2d pool{2};
  kd::nn::ReLU relu;
  kd::nn::Linear fc{32 * 7 * 7, 10};
  SmallCNN() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("pool", pool);
    register_module("relu", relu);
    register_module("fc", fc);
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = pool(relu(conv1(x)));
    h = pool(relu(conv2(h)));
    return fc(h.flatten(1));
  }
};

struct Batch {
  Tensor x, y;
};
Batch fashion_batch() {
  namespace T = kd::data::transforms;
  static auto train = kd::data::FashionMNIST(kd::data::Split::Train,
                                             T::Compose({T::ToTensor(), T::Normalize({0.2860}, {0.3530})}));
  kd::data::DataLoader loader(train, {.batch_size = 64});
  auto [x, y] = *loader.begin();
  return {x, y};
}

kd::nn::CrossEntropyLoss criterion;
const dbg::LossFn loss = [](const Tensor& out, const Tensor& y) { return criterion(out, y); };
dbg::MakeOptimizer adam(double lr) {
  return [lr](const std::vector<Tensor>& p) { return std::make_unique<kd::optim::Adam>(p, kd::optim::AdamOptions{.lr = lr}); };
}
dbg::MakeOptimizer sgd(double lr) {
  return [lr](const std::vector<Tensor>& p) { return std::make_unique<kd::optim::SGD>(p, kd::optim::SGDOptions{.lr = lr}); };
}

template <class Model>
dbg::DoctorOptions with_loops(Model& model, kd::optim::Optimizer& opt, bool zero_grad = true, bool eval = true) {
  dbg::DoctorOptions o;
  o.train_step = [&model, &opt, zero_grad](const Tensor& x, const Tensor& y) {
    if (zero_grad) opt.zero_grad();
    Tensor l = criterion(model(x), y);
    l.backward();
    opt.step();
    return l.item<double>();
  };
  o.evaluate = [&model, eval](const Tensor& x) {
    if (eval) model.eval();
    kd::NoGradGuard no_grad;
    Tensor out = model(x);
    model.train();
    return out;
  };
  return o;
}

std::vector<float> weights(kd::nn::Module& m) {
  std::vector<float> all;
  for (const Tensor& p : m.parameters()) {
    auto v = p.to_vector<float>();
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

}  // namespace

TEST_CASE("doctor: silent on chapter 5's healthy SimpleNet, and leaves the model as it was") {
  kd::manual_seed(0);
  SimpleNet model;
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  const Batch b = fashion_batch();
  const auto before = weights(model);
  const auto report = dbg::doctor(model, loss, adam(1e-3), b.x, b.y, with_loops(model, opt));
  INFO(report.to_string());
  CHECK(report.healthy());
  CHECK(report.skipped.empty());
  // the doctor's own train_step calls moved the weights: they are put back
  CHECK(weights(model) == before);
}

TEST_CASE("doctor: silent on chapter 5's CNN") {
  kd::manual_seed(0);
  SmallCNN model;
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  const Batch b = fashion_batch();
  const auto report = dbg::doctor(model, loss, adam(1e-3), b.x, b.y, with_loops(model, opt));
  INFO(report.to_string());
  CHECK(report.healthy());
}

TEST_CASE("doctor: silent on a healthy Dropout model evaluated with eval()") {
  kd::manual_seed(0);
  DropNet model;
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  const Batch b = fashion_batch();
  const auto report = dbg::doctor(model, loss, adam(1e-3), b.x, b.y, with_loops(model, opt));
  INFO(report.to_string());
  CHECK(report.healthy());
  CHECK(model.is_training());
}

TEST_CASE("doctor: each planted fault is found") {
  const Batch b = fashion_batch();
  auto run = [&](SimpleNet& model, dbg::MakeOptimizer make = adam(1e-3), Tensor x = Tensor()) {
    return dbg::doctor(model, loss, make, x.defined() ? x : b.x, b.y, {.overfit_steps = 60});
  };
  SECTION("softmax before CrossEntropyLoss") {
    kd::manual_seed(0);
    SimpleNet m;
    m.softmax = true;
    const auto r = run(m);
    INFO(r.to_string());
    CHECK(r.has("softmax-before-cross-entropy"));
  }
  SECTION("a detach() that stops the gradient before the first layer") {
    kd::manual_seed(0);
    SimpleNet m;
    m.detach = true;
    const auto r = run(m);
    INFO(r.to_string());
    CHECK(r.has("no-gradient"));
    CHECK(r.findings.front().cause.find("fc1.weight") != std::string::npos);
  }
  SECTION("zero initialisation: constant weights, all-equal outputs") {
    kd::manual_seed(0);
    SimpleNet m;
    {
      kd::NoGradGuard g;
      m.fc1.weight.zero_();
      m.fc2.weight.zero_();
    }
    const auto r = run(m);
    INFO(r.to_string());
    CHECK(r.has("constant-init"));
    CHECK(r.has("all-equal-outputs"));
  }
  SECTION("huge initialisation and exploding gradients") {
    kd::manual_seed(0);
    SimpleNet m;
    {
      kd::NoGradGuard g;
      m.fc1.weight.mul_(300.0);
    }
    const auto r = run(m);
    INFO(r.to_string());
    CHECK(r.has("huge-init"));
    CHECK(r.has("exploding-gradients"));
  }
  SECTION("dead ReLUs (a large negative bias)") {
    kd::manual_seed(0);
    SimpleNet m;
    {
      kd::NoGradGuard g;
      m.fc1.bias.fill_(-50.0);
    }
    const auto r = run(m);
    INFO(r.to_string());
    CHECK(r.has("dead-relu"));
  }
  SECTION("a too-large learning rate") {
    kd::manual_seed(0);
    SimpleNet m;
    const auto r = run(m, sgd(50.0));
    INFO(r.to_string());
    CHECK((r.has("lr-too-large") || r.has("overfit-diverges")));
    CHECK_FALSE(r.has("softmax-before-cross-entropy"));
  }
  SECTION("a learning rate so small nothing is learnt") {
    kd::manual_seed(0);
    SimpleNet m;
    const auto r = run(m, sgd(1e-7));
    INFO(r.to_string());
    CHECK(r.has("cannot-overfit"));
  }
  SECTION("NaN in the data") {
    kd::manual_seed(0);
    SimpleNet m;
    Tensor x = b.x.clone();
    x.data_ptr<float>()[100] = std::nanf("");
    const auto r = run(m, adam(1e-3), x);
    INFO(r.to_string());
    CHECK(r.has("nan-in-data"));
  }
  SECTION("a forward that makes NaN from clean data") {
    kd::manual_seed(0);
    SimpleNet m;
    m.log_of_negative = true;
    const auto r = run(m);
    INFO(r.to_string());
    CHECK(r.has("nan-output"));
    CHECK_FALSE(r.has("nan-in-data"));
  }
  SECTION("a forward that throws (the wrong input shape)") {
    kd::manual_seed(0);
    SimpleNet m;
    const auto r = run(m, adam(1e-3), b.x.view({64, 28, 28}).narrow(2, 0, 20).contiguous());
    INFO(r.to_string());
    CHECK(r.has("forward-fails"));
  }
  SECTION("data of the wrong dtype") {
    kd::manual_seed(0);
    SimpleNet m;
    const auto r = run(m, adam(1e-3), b.x.to(kd::kFloat64));
    INFO(r.to_string());
    CHECK(r.has("input-dtype"));
  }
}

TEST_CASE("doctor: a training step without zero_grad is found") {
  kd::manual_seed(0);
  SimpleNet model;
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  const Batch b = fashion_batch();
  const auto r = dbg::doctor(model, loss, adam(1e-3), b.x, b.y, with_loops(model, opt, /*zero_grad=*/false));
  INFO(r.to_string());
  CHECK(r.has("zero-grad-forgotten"));
  CHECK(r.findings.size() == 1);
}

TEST_CASE("doctor: an evaluation without eval() is found") {
  kd::manual_seed(0);
  DropNet model;
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  const Batch b = fashion_batch();
  const auto r = dbg::doctor(model, loss, adam(1e-3), b.x, b.y,
                             with_loops(model, opt, /*zero_grad=*/true, /*eval=*/false));
  INFO(r.to_string());
  CHECK(r.has("eval-forgotten"));
  CHECK(r.findings.size() == 1);
}
