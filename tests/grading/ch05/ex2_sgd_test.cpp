// ch05.ex2 — SGD with momentum: the library's trajectory.
#include "ch05_grading.hpp"

using namespace ch05_grading;

namespace {
void check_trajectory(double lr, double momentum, double wd) {
  Problem mine(8, 20), ref(8, 20);
  std::vector<kd::Tensor> buffers(mine.params.size());
  kd::optim::SGD sgd(ref.params, {.lr = lr, .momentum = momentum, .weight_decay = wd});
  for (int k = 0; k < 8; ++k) {
    mine.feed(k);
    ref.feed(k);
    ex::sgd_momentum_step(mine.params, buffers, lr, momentum, wd);
    sgd.step();
    for (std::size_t i = 0; i < mine.params.size(); ++i) {
      INFO("step " << k + 1 << ", parameter " << i << " (lr " << lr << ", momentum " << momentum << ", wd " << wd << ")");
      REQUIRE(close(mine.params[i], ref.params[i]));
    }
  }
}
}  // namespace

TEST_CASE("ch05.ex2: SGD with momentum follows torch.optim.SGD for 8 steps", "[ch05][ex2][pts=8]") {
  check_trajectory(0.1, 0.9, 0);
  check_trajectory(0.05, 0.5, 0);
}

TEST_CASE("ch05.ex2: SGD with momentum and weight decay", "[ch05][ex2][pts=4]") { check_trajectory(0.1, 0.9, 0.01); }

TEST_CASE("ch05.ex2: parameters without a gradient are left alone", "[ch05][ex2][pts=3]") {
  kd::Tensor a = kd::ones({3}).requires_grad_(), b = kd::ones({3}).requires_grad_();
  a.set_grad(kd::ones({3}));
  std::vector<kd::Tensor> buffers(2);
  ex::sgd_momentum_step({a, b}, buffers, 0.1, 0.9);
  CHECK(kd::equal(b.detach(), kd::ones({3})));
  CHECK(close(a, kd::full({3}, 0.9)));
  CHECK_FALSE(buffers[1].defined());
  CHECK_FALSE(a.grad_fn());  // updated in place, not through the graph
}
