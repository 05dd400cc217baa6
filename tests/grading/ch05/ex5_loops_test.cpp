// ch05.ex5 — the training and evaluation loops, against the same loops written with the library.
#include "ch05_grading.hpp"

using namespace ch05_grading;

namespace {
// The reference epoch, written with the library (what the chapter shows).
double reference_epoch(kd::nn::Module& model, ex::Loader& loader, kd::optim::Optimizer& opt) {
  kd::nn::CrossEntropyLoss criterion;
  model.train();
  double total = 0;
  for (auto& [x, y] : loader) {
    opt.zero_grad();
    kd::Tensor loss = criterion(model(x), y);
    loss.backward();
    opt.step();
    total += loss.item<double>();
  }
  return total / loader.size();
}

std::vector<kd::Tensor> values(const kd::nn::Module& m) {
  std::vector<kd::Tensor> out;
  for (const auto& p : m.parameters()) out.push_back(p.detach().clone());
  return out;
}
}  // namespace

TEST_CASE("ch05.ex5: three epochs of train_one_epoch match the reference loop", "[ch05][ex5][pts=15]") {
  auto data = make_data(96, 5);
  std::vector<double> mine_losses, ref_losses;
  std::vector<kd::Tensor> mine_w, ref_w;
  for (int which = 0; which < 2; ++which) {
    kd::manual_seed(7);  // same weights, shuffles and dropout masks for both
    Net model;
    kd::optim::Adam opt(model.parameters(), {.lr = 1e-2});
    ex::Loader loader(data, {.batch_size = 16, .shuffle = true});
    for (int e = 0; e < 3; ++e) {
      if (which == 0) mine_losses.push_back(ex::train_one_epoch(model, loader, opt, kd::nn::CrossEntropyLoss()));
      else ref_losses.push_back(reference_epoch(model, loader, opt));
    }
    (which == 0 ? mine_w : ref_w) = values(model);
  }
  for (int e = 0; e < 3; ++e) {
    INFO("epoch " << e + 1 << ": your mean loss " << mine_losses[e] << ", expected " << ref_losses[e]
                  << " (order: zero_grad, forward, loss, backward, step; model.train() first)");
    CHECK(mine_losses[e] == Approx(ref_losses[e]).epsilon(1e-6));
  }
  for (std::size_t i = 0; i < ref_w.size(); ++i) CHECK(close(mine_w[i], ref_w[i]));
  CHECK(mine_losses.back() < mine_losses.front());  // it learns
}

TEST_CASE("ch05.ex5: train_one_epoch clears gradients every step", "[ch05][ex5][pts=5]") {
  // With lr 0 nothing moves, so every step sees the same gradient: after the epoch .grad must hold
  // one batch's gradient, not the sum over all batches.
  auto data = make_data(64, 6);
  kd::manual_seed(8);
  Net model;
  model.drop.p = 0;  // deterministic
  kd::optim::SGD opt(model.parameters(), {.lr = 0.0});
  ex::Loader loader(data, {.batch_size = 64});
  ex::train_one_epoch(model, loader, opt, kd::nn::CrossEntropyLoss());
  const kd::Tensor once = model.fc1.weight.grad().clone();
  ex::train_one_epoch(model, loader, opt, kd::nn::CrossEntropyLoss());
  INFO("after a second epoch over the same single batch, .grad changed: was zero_grad() called?");
  CHECK(close(model.fc1.weight.grad(), once));
}

TEST_CASE("ch05.ex5: evaluate_accuracy counts argmax hits in eval mode", "[ch05][ex5][pts=10]") {
  auto data = make_data(100, 9);
  kd::manual_seed(10);
  Net model;
  ex::Loader loader(data, {.batch_size = 32});
  model.train();
  const double acc = ex::evaluate_accuracy(model, loader);
  CHECK_FALSE(model.is_training());
  model.eval();
  kd::NoGradGuard no_grad;
  const double expected =
      kd::train::accuracy(model(data.data()), data.targets());  // Dropout is off in eval mode
  INFO("your accuracy " << acc << ", expected " << expected);
  CHECK(acc == Approx(expected));
  CHECK(ex::evaluate_accuracy(model, loader) == Approx(acc));  // deterministic: eval() turns Dropout off
}

namespace {
// Net that records the grad mode and train/eval mode it was called in.
struct Probe : Net {
  int calls = 0, calls_with_grad = 0, calls_in_train = 0;
  kd::Tensor forward(const kd::Tensor& x) override {
    ++calls;
    calls_with_grad += kd::is_grad_enabled();
    calls_in_train += is_training();
    return Net::forward(x);
  }
};
}  // namespace

TEST_CASE("ch05.ex5: evaluate_accuracy runs the model without building a graph", "[ch05][ex5][pts=5]") {
  auto data = make_data(64, 11);
  kd::manual_seed(12);
  Probe model;
  ex::Loader loader(data, {.batch_size = 16});
  ex::evaluate_accuracy(model, loader);
  INFO("forward calls: " << model.calls << ", with grad mode on: " << model.calls_with_grad
                         << ", in train mode: " << model.calls_in_train << " (use NoGradGuard and model.eval())");
  CHECK(model.calls == 4);
  CHECK(model.calls_with_grad == 0);
  CHECK(model.calls_in_train == 0);
  CHECK(kd::is_grad_enabled());  // and grad mode is back on afterwards
}
