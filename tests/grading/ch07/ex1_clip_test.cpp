// ch07.ex1 — nn::utils::clip_grad_norm_ (which calls the piece detail::clip_total_norm_): the total norm it
// returns and the gradients it leaves, against torch.nn.utils.clip_grad_norm_ on the same gradients.
#include "ch07_grading.hpp"

using namespace ch07_grading;

namespace {

/// Two parameters w1, w2 with gradients g1, g2 (the twin's inputs); reports the total norm clip_grad_norm_
/// returns and both gradients after it.
void clip_and_report(double max_norm, double norm_type, const std::string& prefix = "") {
  kd::Tensor w1 = grading::input("w1").clone(), w2 = grading::input("w2").clone();
  w1.requires_grad_(true);
  w2.requires_grad_(true);
  w1.set_grad(grading::input("g1").clone());
  w2.set_grad(grading::input("g2").clone());
  const kd::Tensor total = kd::nn::utils::clip_grad_norm_({w1, w2}, max_norm, norm_type);
  grading::expect(prefix + "total norm", total);
  grading::expect(prefix + "w1.grad", w1.grad());
  grading::expect(prefix + "w2.grad", w2.grad());
}

}  // namespace

TEST_CASE("clip_grad_norm_: the 2-norm, clipped to 0.5", "[ch07][ex1][pts=8]") { clip_and_report(0.5, 2.0); }

TEST_CASE("clip_grad_norm_: below max_norm the gradients stay", "[ch07][ex1][pts=5]") {
  clip_and_report(100.0, 2.0);
}

TEST_CASE("clip_grad_norm_: the 1-norm and the 3-norm", "[ch07][ex1][pts=7]") {
  clip_and_report(1.0, 1.0, "p=1: ");
  clip_and_report(0.7, 3.0, "p=3: ");
}

TEST_CASE("clip_grad_norm_: the inf-norm is the largest absolute value", "[ch07][ex1][pts=6]") {
  clip_and_report(0.25, kd::nn::utils::kInf);
}

TEST_CASE("clip_grad_norm_: float64 gradients", "[ch07][ex1][pts=6]") { clip_and_report(0.3, 2.0); }

TEST_CASE("clip_grad_norm_: a parameter without a gradient and a transposed gradient", "[ch07][ex1][pts=4]") {
  kd::Tensor w1 = grading::input("w1").clone(), w2 = grading::input("w2").clone(), w3 = grading::input("w2").clone();
  for (kd::Tensor* w : {&w1, &w2, &w3}) w->requires_grad_(true);
  w1.set_grad(grading::input("g1t").t());  // g1t: [3, 4], so its transpose is a [4, 3] view
  w2.set_grad(grading::input("g2").clone());
  const kd::Tensor total = kd::nn::utils::clip_grad_norm_({w1, w3, w2}, 0.5);
  grading::expect("total norm", total);
  grading::expect("w1.grad", w1.grad());
  grading::expect("w2.grad", w2.grad());
}

TEST_CASE("clip_grad_norm_: a non-finite norm with error_if_nonfinite", "[ch07][ex1][pts=4]") {
  kd::Tensor w1 = grading::input("w1").clone(), w2 = grading::input("w2").clone();
  w1.requires_grad_(true);
  w2.requires_grad_(true);
  kd::Tensor g1 = grading::input("g1").clone();
  g1.data_ptr<float>()[0] = INFINITY;
  w1.set_grad(g1);
  w2.set_grad(grading::input("g2").clone());
  grading::expect_error("an Inf gradient, error_if_nonfinite",
                        [&] { (void)kd::nn::utils::clip_grad_norm_({w1, w2}, 1.0, 2.0, true); });
  // The gradients are left as they were.
  CHECK(std::isinf(w1.grad().data_ptr<float>()[0]));
}
