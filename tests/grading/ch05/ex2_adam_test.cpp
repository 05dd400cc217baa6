// ch05.ex2 — the Adam update (optim::detail::adam_step), through kd::optim::Adam and AdamW, against torch.optim.
#include "ch05_grading.hpp"

using namespace ch05_grading;
using kd::optim::Adam;
using kd::optim::AdamOptions;
using kd::optim::AdamW;
using kd::optim::AdamWOptions;

namespace {
void run_adam(const std::string& label, const AdamOptions& o, const kd::Tensor& p) {
  run_optimizer([&](std::vector<kd::Tensor> ps) { return std::make_unique<Adam>(std::move(ps), o); }, p, grads(),
                label + ": p");
}
void run_adamw(const std::string& label, const AdamWOptions& o, const kd::Tensor& p) {
  run_optimizer([&](std::vector<kd::Tensor> ps) { return std::make_unique<AdamW>(std::move(ps), o); }, p, grads(),
                label + ": p");
}
}  // namespace

TEST_CASE("Adam: steps with PyTorch's defaults and other betas", "[ch05][ex2][pts=4]") {
  const kd::Tensor p = grading::input("p");
  run_adam("default", {}, p);
  run_adam("lr 0.01, betas (0.8, 0.9), eps 1e-6", {.lr = 0.01, .betas = {0.8, 0.9}, .eps = 1e-6}, p);
}

TEST_CASE("Adam: weight decay, amsgrad and maximize", "[ch05][ex2][pts=4]") {
  const kd::Tensor p = grading::input("p");
  run_adam("weight decay 0.1", {.lr = 0.01, .weight_decay = 0.1}, p);
  run_adam("amsgrad", {.lr = 0.01, .amsgrad = true}, p);
  run_adam("maximize", {.lr = 0.01, .maximize = true}, p);
}

TEST_CASE("AdamW: decoupled weight decay", "[ch05][ex2][pts=3]") {
  const kd::Tensor p = grading::input("p");
  run_adamw("AdamW weight decay 0.1", {.lr = 0.01, .weight_decay = 0.1}, p);
  run_adamw("AdamW amsgrad", {.lr = 0.01, .amsgrad = true}, p);
}

TEST_CASE("Adam: 100 steps on a least-squares problem, float64", "[ch05][ex2][pts=3]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b");
  kd::Tensor w = kd::zeros({5}, {.dtype = kd::kFloat64});
  w.requires_grad_(true);
  Adam opt({w}, {.lr = 0.05});
  std::vector<double> losses;
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    kd::Tensor r = a.matmul(w) - b;
    kd::Tensor loss = (r * r).mean();
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  grading::expect("w after 100 steps", w.detach());
  grading::expect("the 100 losses", kd::tensor(losses, kd::Shape{100}));
}
