// ch06.ex1 — GradScaler::unscale_ and step's inf check (amp::detail::unscale_and_check), against PyTorch's
// GradScaler with its _amp_foreach_non_finite_check_and_unscale_ kernel.
#include "ch06_grading.hpp"

using namespace ch06_grading;

namespace {
/// t with element i (of its contiguous clone) set to v.
kd::Tensor with_element(const kd::Tensor& t, std::int64_t i, double v) {
  kd::Tensor c = t.clone();
  c.data_ptr<float>()[i] = static_cast<float>(v);
  return c;
}
}  // namespace

TEST_CASE("unscale_: float32 and float64 gradients", "[ch06][ex1][pts=8]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b");
  report_unscaled({a * 65536, b * 1024}, 65536.0);
}

TEST_CASE("unscale_: an inv_scale that rounds", "[ch06][ex1][pts=6]") {
  report_unscaled({grading::input("a"), grading::input("b")}, 3.0);
}

TEST_CASE("unscale_: a non-contiguous gradient is written through", "[ch06][ex1][pts=6]") {
  kd::Tensor g = grading::input("g").clone();
  kd::Tensor w = kd::zeros({4, 5}).requires_grad_();
  kd::optim::SGD opt({w}, {.lr = 0.1});
  kd::amp::GradScaler scaler({.init_scale = 8.0});
  w.set_grad(g.t());  // a transposed view of g
  scaler.unscale_(opt);
  grading::expect("grad after unscale_", w.grad().clone());
  grading::expect("the tensor it views", g.clone());
}

TEST_CASE("unscale_: inf and NaN skip the step", "[ch06][ex1][pts=10]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b");
  const kd::Tensor inf_a = with_element(a, 6, kInf), nan_b = with_element(b, 3, kNaN);
  struct Case {
    const char* label;
    std::vector<kd::Tensor> grads;
    std::size_t clean;
  };
  for (const Case& c : {Case{"inf", {inf_a, b}, 1}, Case{"nan", {a, nan_b}, 0}, Case{"-inf", {b, -inf_a}, 0},
                        Case{"clean", {a, b}, 1}}) {
    std::vector<kd::Tensor> ps;
    for (const kd::Tensor& g : c.grads) ps.push_back(kd::zeros(g.shape()).requires_grad_());
    kd::optim::SGD opt(ps, {.lr = 0.1});
    kd::amp::GradScaler scaler({.init_scale = 4.0});
    for (std::size_t i = 0; i < ps.size(); ++i) ps[i].set_grad(c.grads[i].clone());
    const bool ran = scaler.step(opt);
    grading::expect(std::string(c.label) + ": step ran", ran);
    grading::expect(std::string(c.label) + ": the finite gradient", ps[c.clean].grad().clone());
  }
}

TEST_CASE("unscale_: a bfloat16 gradient is rounded once", "[ch06][ex1][pts=5]") {
  report_unscaled({grading::input("a")}, 3.0);
}
