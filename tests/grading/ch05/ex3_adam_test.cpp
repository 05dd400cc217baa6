// ch05.ex3 — Adam: the library's trajectory.
#include "ch05_grading.hpp"

using namespace ch05_grading;

namespace {
void check_trajectory(double lr, double b1, double b2, double eps, int steps, kd::DType dtype = kd::kFloat32) {
  Problem mine(steps, 30, dtype), ref(steps, 30, dtype);
  std::vector<ex::AdamState> states(mine.params.size());
  kd::optim::Adam adam(ref.params, {.lr = lr, .betas = {b1, b2}, .eps = eps});
  for (int k = 0; k < steps; ++k) {
    mine.feed(k);
    ref.feed(k);
    for (std::size_t i = 0; i < mine.params.size(); ++i) ex::adam_step(mine.params[i], states[i], lr, b1, b2, eps);
    adam.step();
    for (std::size_t i = 0; i < mine.params.size(); ++i) {
      INFO("step " << k + 1 << ", parameter " << i << " (lr " << lr << ", betas " << b1 << ", " << b2 << ")");
      REQUIRE(close(mine.params[i], ref.params[i], 1e-5, 1e-6));
    }
  }
  CHECK(states[0].step == steps);
}
}  // namespace

TEST_CASE("ch05.ex3: Adam with default betas follows torch.optim.Adam for 10 steps", "[ch05][ex3][pts=10]") {
  check_trajectory(1e-2, 0.9, 0.999, 1e-8, 10);
}

TEST_CASE("ch05.ex3: Adam with other betas and eps (bias correction matters early)", "[ch05][ex3][pts=6]") {
  check_trajectory(1e-1, 0.8, 0.99, 1e-6, 5);
}

TEST_CASE("ch05.ex3: a parameter without a gradient keeps its value and its state", "[ch05][ex3][pts=4]") {
  kd::Tensor p = kd::ones({4}).requires_grad_();
  ex::AdamState s;
  ex::adam_step(p, s);
  CHECK(s.step == 0);
  CHECK(kd::equal(p.detach(), kd::ones({4})));
}
