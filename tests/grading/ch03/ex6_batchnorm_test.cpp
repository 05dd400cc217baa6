// ch03.ex6 — BatchNorm1d compared step by step with kindling::nn::BatchNorm1d on the same batches:
// outputs, running statistics, eval mode, gradients, and what is registered.
#include "ch03_grading.hpp"

using namespace ch03_grading;

namespace {
void check_same_state(const nn::Module& mine, const nn::Module& ref, const std::string& when) {
  const kd::StateDict a = mine.state_dict(), b = ref.state_dict();
  for (const auto& [name, t] : b) {
    INFO(when << ": " << name);
    REQUIRE(a.contains(name));
    if (t.dtype() == kd::kInt64) {
      CHECK(a.at(name).dtype() == kd::kInt64);
      CHECK(kd::equal(a.at(name), t));
    } else {
      check_close(a.at(name), t, name);
    }
  }
}
}  // namespace

TEST_CASE("ch03.ex6: parameters weight, bias and buffers running_mean, running_var, num_batches_tracked",
          "[ch03][ex6][pts=3]") {
  ex::BatchNorm1d mine(5);
  nn::BatchNorm1d ref(5);
  INFO("named_parameters(): " << list_str(names_of(mine.named_parameters())));
  CHECK(names_of(mine.named_parameters()) == names_of(ref.named_parameters()));
  INFO("named_buffers(): " << list_str(names_of(mine.named_buffers())));
  CHECK(names_of(mine.named_buffers()) == names_of(ref.named_buffers()));
  REQUIRE(mine.state_dict().keys() == ref.state_dict().keys());
  CHECK(mine.num_batches_tracked.dim() == 0);
  check_same_state(mine, ref, "initial values");
  CHECK(mine.weight.requires_grad());
  CHECK_FALSE(mine.running_mean.requires_grad());
}

TEST_CASE("ch03.ex6: training forward and running statistics match the library over 5 batches", "[ch03][ex6][pts=6]") {
  kd::manual_seed(31);
  ex::BatchNorm1d mine(4);
  nn::BatchNorm1d ref(4);
  const kd::Tensor running_mean = mine.named_buffers()[0].second;  // a handle taken before training
  for (int step = 0; step < 5; ++step) {
    const kd::Tensor x = kd::randn({8 + step, 4}) * 3.0 + 2.0;
    INFO("batch " << step + 1);
    check_close(mine(x), ref(x), "output");
    check_same_state(mine, ref, "after batch " + std::to_string(step + 1));
  }
  INFO("the running statistics must be updated in place (the buffer registered at construction)");
  check_close(running_mean, ref.running_mean, "registered running_mean");
}

TEST_CASE("ch03.ex6: eval() normalises with the running statistics and updates nothing", "[ch03][ex6][pts=4]") {
  kd::manual_seed(32);
  ex::BatchNorm1d mine(3);
  nn::BatchNorm1d ref(3);
  for (int step = 0; step < 3; ++step) {
    const kd::Tensor x = kd::randn({16, 3}) * 2.0 - 1.0;
    mine(x);
    ref(x);
  }
  mine.eval();
  ref.eval();
  const kd::Tensor x = kd::randn({6, 3});
  check_close(mine(x), ref(x), "eval output");
  check_same_state(mine, ref, "after an eval forward");
  const kd::Tensor one = kd::randn({1, 3});  // a batch of one is fine in eval
  check_close(mine(one), ref(one), "eval output for one sample");
}

TEST_CASE("ch03.ex6: momentum and eps are used", "[ch03][ex6][pts=2]") {
  kd::manual_seed(33);
  ex::BatchNorm1d mine(3, /*eps=*/0.5, /*momentum=*/0.3);
  nn::BatchNorm1d ref(3, {.eps = 0.5, .momentum = 0.3});
  for (int step = 0; step < 2; ++step) {
    const kd::Tensor x = kd::rand({5, 3});
    check_close(mine(x), ref(x), "output with eps = 0.5");
    check_same_state(mine, ref, "momentum 0.3");
  }
}

TEST_CASE("ch03.ex6: gradients of x, weight and bias equal the library's; stats stay out of the graph",
          "[ch03][ex6][pts=4]") {
  kd::manual_seed(34);
  ex::BatchNorm1d mine(4);
  nn::BatchNorm1d ref(4);
  {
    kd::NoGradGuard no_grad;  // non-trivial affine parameters, the same in both
    const kd::Tensor w = kd::rand({4}) + 0.5, b = kd::randn({4});
    mine.weight.copy_(w);
    ref.weight.copy_(w);
    mine.bias.copy_(b);
    ref.bias.copy_(b);
  }
  const kd::Tensor x = kd::randn({10, 4}).requires_grad_();
  const kd::Tensor x2 = leaf_copy(x);
  const kd::Tensor g = kd::randn({10, 4});
  (mine(x) * g).sum().backward();
  (ref(x2) * g).sum().backward();
  check_close(x.grad(), x2.grad(), "x.grad", 1e-4, 1e-5);
  check_close(mine.weight.grad(), ref.weight.grad(), "weight.grad", 1e-4, 1e-5);
  check_close(mine.bias.grad(), ref.bias.grad(), "bias.grad", 1e-4, 1e-5);
  INFO("update the running statistics under kd::NoGradGuard: they must not require grad");
  CHECK_FALSE(mine.running_mean.requires_grad());
  CHECK_FALSE(mine.running_var.requires_grad());
  CHECK(mine.running_mean.grad_fn() == nullptr);
}

TEST_CASE("ch03.ex6: an input that is not [N, C] throws ShapeError", "[ch03][ex6][pts=1]") {
  ex::BatchNorm1d mine(4);
  CHECK_THROWS_AS(mine(kd::randn({4})), kd::ShapeError);
  CHECK_THROWS_AS(mine(kd::randn({2, 4, 3, 3})), kd::ShapeError);
}
