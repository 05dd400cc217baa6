// ch05.ex1 — the SGD update (optim::detail::sgd_step), through kd::optim::SGD, against torch.optim.SGD.
#include "ch05_grading.hpp"

using namespace ch05_grading;
using kd::optim::SGD;
using kd::optim::SGDOptions;

namespace {
void run_sgd(const std::string& label, const SGDOptions& o, const kd::Tensor& p) {
  run_optimizer([&](std::vector<kd::Tensor> ps) { return std::make_unique<SGD>(std::move(ps), o); }, p, grads(),
                label + ": p");
}
}  // namespace

TEST_CASE("SGD: steps with and without momentum", "[ch05][ex1][pts=4]") {
  const kd::Tensor p = grading::input("p");
  run_sgd("plain", {.lr = 0.1}, p);
  run_sgd("momentum 0.9", {.lr = 0.05, .momentum = 0.9}, p);
  run_sgd("momentum 0.9, dampening 0.3", {.lr = 0.05, .momentum = 0.9, .dampening = 0.3}, p);
}

TEST_CASE("SGD: Nesterov, weight decay and maximize", "[ch05][ex1][pts=4]") {
  const kd::Tensor p = grading::input("p");
  run_sgd("nesterov", {.lr = 0.05, .momentum = 0.8, .nesterov = true}, p);
  run_sgd("weight decay 0.1", {.lr = 0.1, .weight_decay = 0.1}, p);
  run_sgd("momentum + weight decay + maximize", {.lr = 0.05, .momentum = 0.5, .weight_decay = 0.01, .maximize = true}, p);
}

TEST_CASE("SGD: float64 parameters", "[ch05][ex1][pts=2]") {
  run_optimizer([](std::vector<kd::Tensor> ps) { return std::make_unique<SGD>(std::move(ps), SGDOptions{.lr = 0.1, .momentum = 0.9}); },
                grading::input("p"), grads());
}
