#pragma once
// Shared by chapter 6's graded tests: GradScaler over given gradients (the twin, pytorch.py, runs
// PyTorch's GradScaler class over the same ones).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <kindling/kindling.hpp>

#include "grading.hpp"

namespace ch06_grading {
namespace kd = kindling;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Each grads[i] as the gradient of a parameter of its shape and dtype; reports the gradients after
/// scaler.unscale_(optimizer), and whether step() then ran.
inline void report_unscaled(const std::vector<kd::Tensor>& grads, double init_scale, const std::string& prefix = "") {
  std::vector<kd::Tensor> ps;
  for (const kd::Tensor& g : grads) ps.push_back(kd::zeros(g.shape(), {.dtype = g.dtype()}).requires_grad_());
  kd::optim::SGD opt(ps, {.lr = 0.1});
  kd::amp::GradScaler scaler({.init_scale = init_scale});
  for (std::size_t i = 0; i < ps.size(); ++i) ps[i].set_grad(grads[i].clone());
  scaler.unscale_(opt);
  for (std::size_t i = 0; i < ps.size(); ++i)
    grading::expect(prefix + "grad " + std::to_string(i) + " after unscale_", ps[i].grad().clone());
  grading::expect(prefix + "step ran", scaler.step(opt));
}

/// SGD on one parameter whose gradient at step k is g * factors[k]: the scale and the growth tracker
/// after each update(), which steps ran, and the parameter at the end.
inline void report_scale_sequence(const std::vector<double>& factors, kd::amp::GradScalerOptions o) {
  kd::Tensor w = grading::input("p").clone().requires_grad_();
  const kd::Tensor g = grading::input("g");
  kd::optim::SGD opt({w}, {.lr = 0.1});
  kd::amp::GradScaler scaler(o);
  std::vector<double> scales;
  std::vector<std::int64_t> trackers, ran;
  for (double f : factors) {
    opt.zero_grad();
    w.set_grad(g * f);
    ran.push_back(scaler.step(opt) ? 1 : 0);
    scaler.update();
    scales.push_back(scaler.get_scale());
    trackers.push_back(scaler.growth_tracker());
  }
  grading::expect("scale after each update", kd::tensor(scales, kd::Shape{static_cast<std::int64_t>(scales.size())}));
  grading::expect("growth tracker after each update", trackers);
  grading::expect("steps that ran", ran);
  grading::expect("w", w.detach().clone());
}

}  // namespace ch06_grading
