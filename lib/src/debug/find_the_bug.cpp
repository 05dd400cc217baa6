// What chapter 7's find-the-bug programs share (kindling/debug/find_the_bug.hpp); the programs
// themselves are the exercises (solutions/ch07/ex2..ex4).
#include "kindling/debug/find_the_bug.hpp"

#include <cstdio>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/random.hpp"
#include "kindling/train/losses.hpp"

namespace kindling::debug::find_the_bug {

MLP::MLP(std::int64_t features, std::int64_t hidden, std::int64_t classes)
    : fc1(features, hidden), fc2(hidden, classes) {
  register_module("fc1", fc1);
  register_module("relu", relu);
  register_module("fc2", fc2);
}

Tensor MLP::forward(const Tensor& x) { return fc2(relu(fc1(x))); }

DropoutMLP::DropoutMLP(std::int64_t features, std::int64_t hidden, std::int64_t classes)
    : fc1(features, hidden), bn(hidden), drop(0.5), fc2(hidden, classes) {
  register_module("fc1", fc1);
  register_module("bn", bn);
  register_module("relu", relu);
  register_module("drop", drop);
  register_module("fc2", fc2);
}

Tensor DropoutMLP::forward(const Tensor& x) { return fc2(drop(relu(bn(fc1(x))))); }

Run start_run(const Problem& p) {
  manual_seed(0);
  Run run;
  run.model = std::make_shared<MLP>(p.x.size(1), kHidden, p.classes);
  return run;
}

void record(Run& run, const char* program, int step, const Tensor& loss) {
  run.losses.push_back(loss.item<double>());
  if (step % 50 == 0) std::printf("%s: step %3d: loss %g\n", program, step, run.losses.back());
}

void run_steps(Run& run, optim::Optimizer& opt, const char* program, const std::function<Tensor()>& step_loss) {
  for (int step = 0; step < kSteps; ++step) {
    Tensor loss = step_loss();
    loss.backward();
    opt.step();
    record(run, program, step, loss);
  }
}

void fit(Run& run, optim::Optimizer& opt, const Tensor& x, const Tensor& targets, const char* program) {
  MLP& model = *run.model;
  nn::CrossEntropyLoss criterion;
  run_steps(run, opt, program, [&] {
    opt.zero_grad();
    return criterion(model(x), targets);
  });
}

double accuracy(nn::Module& model, const Tensor& x, const Tensor& y) {
  const bool was_training = model.is_training();
  model.eval();
  NoGradGuard no_grad;
  const double correct = (model(x).argmax(1) == y).sum().item<double>();
  model.train(was_training);
  return y.size(0) == 0 ? 0.0 : correct / static_cast<double>(y.size(0));
}

Tensor augment(const Tensor& x) {
  // x: [n, features]; noise: [n, features] ~ N(0, kAugmentNoise^2), a fresh draw on every call
  return x + randn_like(x) * kAugmentNoise;
}

}  // namespace kindling::debug::find_the_bug
