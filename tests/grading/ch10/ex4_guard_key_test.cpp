// ch10.ex4 — jit::detail::guard_key, judged through kd::compile: every call's output equals
// PyTorch's, and the module traced once per distinct (dtype, shape, strides, grad mode, train flags,
// requires_grad flags), as the twin counts them replaying the same calls in PyTorch.
#include "ch10_grading.hpp"

using namespace ch10_grading;

namespace {
// A layer whose forward depends on its own train/eval flag (a trace records the branch taken).
struct Scale : kd::nn::Module {
  kd::Tensor w;
  explicit Scale(const kd::Tensor& w0) { w = register_parameter("w", w0.clone()); }
  kd::Tensor forward(const kd::Tensor& x) override { return is_training() ? x * w : x * w * 0.5; }
};
// x: [batch, width] -> [batch, width]
struct Net : kd::nn::Module {
  Scale a, b;
  kd::Tensor bias;
  Net() : a(grading::input("wa")), b(grading::input("wb")) {
    register_module("a", a);
    register_module("b", b);
    bias = register_parameter("bias", grading::input("bias").clone());
  }
  kd::Tensor forward(const kd::Tensor& x) override { return b((a(x).tanh() + bias)); }
};
}  // namespace

TEST_CASE("guard: a new shape, stride or dtype traces again, a known one does not", "[ch10][ex4][pts=7]") {
  Net net;
  auto fast = kd::compile(net, compile_options());
  const kd::Tensor x = grading::input("x"), x2 = grading::input("x2");
  const kd::Tensor xt = grading::input("x_transposed").t();  // [batch, width], not contiguous
  kd::NoGradGuard no_grad;
  grading::expect("x", (*fast)(x));
  grading::expect("x again", (*fast)(x));
  grading::expect("another batch size", (*fast)(x2));
  grading::expect("a transposed input", (*fast)(xt));
  grading::expect("float64", (*fast)(x.to(kd::kFloat64)));
  grading::expect("x once more", (*fast)(x));
  grading::expect("traces", static_cast<std::int64_t>(fast->stats().traces));
}

TEST_CASE("guard: train/eval of any module, grad mode, requires_grad", "[ch10][ex4][pts=8]") {
  Net net;
  auto fast = kd::compile(net, compile_options());
  const kd::Tensor x = grading::input("x"), g = grading::input("g");
  auto step = [&](const std::string& name) {
    for (kd::Tensor p : net.parameters()) p.set_grad(kd::Tensor());
    kd::Tensor y = (*fast)(x);
    grading::expect(name, y.detach());
    if (y.requires_grad()) {
      y.backward(g);
      for (const auto& [pname, p] : net.named_parameters())
        grading::expect(name + ": " + pname + " has a gradient", p.grad().defined());
      if (net.b.w.grad().defined()) grading::expect(name + ": b.w.grad", net.b.w.grad());
    }
  };
  step("train");
  net.b.eval();  // only the inner layer
  step("b in eval");
  net.eval();
  step("eval");
  {
    kd::NoGradGuard no_grad;
    step("eval, no grad");
  }
  net.train();
  net.a.w.requires_grad_(false);
  step("a.w frozen");
  net.a.w.requires_grad_(true);
  step("a.w trains again");
  grading::expect("traces", static_cast<std::int64_t>(fast->stats().traces));
}

TEST_CASE("guard: a training loop with a validation pass traces once per mode", "[ch10][ex4][pts=5]") {
  Net net;
  auto fast = kd::compile(net, compile_options());
  const kd::Tensor xs = grading::input("xs"), ts = grading::input("ts");  // [steps, batch, width]
  const double lr = 0.1;
  for (std::int64_t i = 0; i < xs.size(0); ++i) {
    for (kd::Tensor p : net.parameters()) p.set_grad(kd::Tensor());
    kd::Tensor loss = ((*fast)(xs[i]) - ts[i]).pow(2.0).mean();
    loss.backward();
    {
      kd::NoGradGuard no_grad;
      for (kd::Tensor p : net.parameters()) p.sub_(p.grad() * lr);
    }
    grading::expect("loss " + std::to_string(i), loss.detach());
    if (i == 1) {  // a validation pass between two steps
      net.eval();
      kd::NoGradGuard no_grad;
      grading::expect("validation", (*fast)(xs[0]));
      net.train();
    }
  }
  for (const auto& [name, p] : net.named_parameters()) grading::expect(name, p.detach());
  grading::expect("traces", static_cast<std::int64_t>(fast->stats().traces));
}
