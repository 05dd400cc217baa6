// ch03.ex1 — nn::Linear (constructor, reset_parameters) and detail::linear_forward, against torch.nn.Linear.
#include "ch03_grading.hpp"

using namespace ch03_grading;

TEST_CASE("Linear: weight [out, in] and bias [out] are its parameters", "[ch03][ex1][pts=4]") {
  nn::Linear fc(7, 3);
  grading::expect("names", names(fc.named_parameters()));
  grading::expect("weight shape", fc.weight.shape());
  grading::expect("bias shape", fc.bias.shape());
  grading::expect("both require grad", fc.weight.requires_grad() && fc.bias.requires_grad());
  grading::expect("in_features, out_features", std::vector<std::int64_t>{fc.in_features, fc.out_features});
  CHECK(fc.named_parameters()[0].second.is_same(fc.weight));  // the member *is* the registered tensor
  nn::Linear nb(7, 3, {.bias = false});
  grading::expect("bias=false: names", names(nb.named_parameters()));
  grading::expect_error("Linear(-1, 3)", [] { nn::Linear bad(-1, 3); });
}

TEST_CASE("Linear: initial values within 1/sqrt(in), the whole range used", "[ch03][ex1][pts=5]") {
  // The initial weights and biases are reported as they are; the grader checks their range, mean and
  // spread outside this process.
  for (auto [in, out] : std::vector<std::pair<int, int>>{{300, 200}, {16, 2000}, {1000, 64}}) {
    kd::manual_seed(1234);
    nn::Linear fc(in, out);
    const std::string what = "Linear(" + std::to_string(in) + ", " + std::to_string(out) + ")";
    grading::expect(what + ".weight", fc.weight.detach());
    grading::expect(what + ".bias", fc.bias.detach());
  }
}

TEST_CASE("Linear: initialisation draws from the global generator", "[ch03][ex1][pts=2]") {
  kd::manual_seed(7);
  nn::Linear a(20, 10);
  kd::manual_seed(7);
  nn::Linear b(20, 10);
  kd::manual_seed(8);
  nn::Linear c(20, 10);
  grading::expect("same seed, same weights", kd::equal(a.weight, b.weight) && kd::equal(a.bias, b.bias));
  grading::expect("another seed, other weights", !kd::equal(a.weight, c.weight));
  const kd::Tensor before = a.weight.detach().clone();
  a.reset_parameters();
  grading::expect("reset_parameters draws again", !kd::equal(a.weight, before));
}

TEST_CASE("Linear: forward on [N, in], [in] and [2, 3, in] inputs", "[ch03][ex1][pts=4]") {
  nn::Linear fc(7, 3);
  set(fc.weight, grading::input("w"));
  set(fc.bias, grading::input("b"));
  grading::expect("fc(x2)", fc(grading::input("x2")).detach());
  grading::expect("fc(x1)", fc(grading::input("x1")).detach());
  grading::expect("fc(x3)", fc(grading::input("x3")).detach());
  nn::Linear nb(7, 3, {.bias = false});
  set(nb.weight, grading::input("w"));
  grading::expect("no bias: fc(x2)", nb(grading::input("x2")).detach());
}

TEST_CASE("Linear: gradients of x, weight and bias", "[ch03][ex1][pts=5]") {
  nn::Linear fc(7, 3);
  set(fc.weight, grading::input("w"));
  set(fc.bias, grading::input("b"));
  kd::Tensor x = grading::input("x");
  x.requires_grad_(true);
  (fc(x) * grading::input("g")).sum().backward();
  grading::expect("x.grad", x.grad());
  grading::expect("weight.grad", fc.weight.grad());
  grading::expect("bias.grad", fc.bias.grad());
}
