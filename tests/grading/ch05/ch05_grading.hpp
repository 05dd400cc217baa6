#pragma once
// Shared by chapter 5's graded tests: running an optimizer over given gradients, and a scheduler over
// given metrics. The PyTorch twin (pytorch.py) does the same with torch.optim.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <kindling/kindling.hpp>

#include "grading.hpp"

namespace ch05_grading {
namespace kd = kindling;

constexpr int kSteps = 4;

/// The test's gradients g0, g1, ... (inputs of the twin).
inline std::vector<kd::Tensor> grads() {
  std::vector<kd::Tensor> g;
  for (int k = 0; k < kSteps; ++k) g.push_back(grading::input("g" + std::to_string(k)));
  return g;
}

/// Reports p after each step of an optimizer made by `make`, with grads[k] as the gradient of step k.
inline void run_optimizer(const std::function<std::unique_ptr<kd::optim::Optimizer>(std::vector<kd::Tensor>)>& make,
                          const kd::Tensor& p0, const std::vector<kd::Tensor>& g, const std::string& name = "p") {
  kd::Tensor p = p0.clone();
  p.requires_grad_(true);
  auto opt = make({p});
  for (std::size_t k = 0; k < g.size(); ++k) {
    p.set_grad(g[k].clone());
    opt->step();
    grading::expect(name + " after step " + std::to_string(k + 1), p.detach().clone());
  }
}

/// The lr after each scheduler.step(metric), for an SGD optimizer with lr 1.
inline kd::Tensor plateau_lrs(const std::vector<double>& metrics, kd::optim::ReduceLROnPlateauOptions o) {
  kd::Tensor p = kd::zeros({1});
  p.requires_grad_(true);
  kd::optim::SGD opt({p}, {.lr = 1.0});
  kd::optim::ReduceLROnPlateau sched(opt, o);
  std::vector<double> lrs;
  for (double m : metrics) {
    sched.step(m);
    lrs.push_back(opt.lr());
  }
  return kd::tensor(lrs, kd::Shape{static_cast<std::int64_t>(lrs.size())});
}

}  // namespace ch05_grading
