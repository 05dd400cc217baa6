// ch05.ex1 — cross-entropy: the library's value and gradient, finite on huge logits.
#include "ch05_grading.hpp"

using namespace ch05_grading;

TEST_CASE("ch05.ex1: cross_entropy equals the library's value", "[ch05][ex1][pts=5]") {
  kd::Generator gen(1);
  for (kd::DType dtype : {kd::kFloat32, kd::kFloat64}) {
    for (auto [batch, classes] : std::vector<std::pair<int, int>>{{1, 2}, {8, 5}, {32, 10}}) {
      kd::Tensor x = kd::randn({batch, classes}, {.dtype = dtype}, &gen);
      kd::Tensor t = kd::randint(0, classes, {batch}, {.dtype = kd::kInt64}, &gen);
      INFO("logits " << kd::shape_str(x.shape()) << " " << kd::dtype_name(dtype));
      const kd::Tensor got = ex::cross_entropy(x, t);
      const kd::Tensor expected = kd::nn::functional::cross_entropy(x, t);
      INFO("got " << got.to(kd::kFloat64).item<double>() << ", expected " << expected.item<double>());
      REQUIRE(got.dim() == 0);
      CHECK(close(got, expected));
    }
  }
}

TEST_CASE("ch05.ex1: cross_entropy's gradient equals the library's", "[ch05][ex1][pts=5]") {
  kd::Generator gen(2);
  kd::Tensor x = kd::randn({16, 7}, {}, &gen);
  kd::Tensor t = kd::randint(0, 7, {16}, {.dtype = kd::kInt64}, &gen);
  kd::Tensor a = x.clone().requires_grad_(), b = x.clone().requires_grad_();
  ex::cross_entropy(a, t).backward();
  kd::nn::functional::cross_entropy(b, t).backward();
  REQUIRE(a.grad().defined());
  CHECK(close(a.grad(), b.grad()));
}

TEST_CASE("ch05.ex1: cross_entropy stays finite on logits of size 1000", "[ch05][ex1][pts=5]") {
  kd::Generator gen(3);
  kd::Tensor x = (kd::randn({8, 5}, {}, &gen) * 1000).requires_grad_();
  kd::Tensor t = kd::randint(0, 5, {8}, {.dtype = kd::kInt64}, &gen);
  kd::Tensor loss = ex::cross_entropy(x, t);
  INFO("loss " << loss.item<double>() << " (exp(1000) overflows: subtract the row max first)");
  CHECK(std::isfinite(loss.item<double>()));
  CHECK(close(loss, kd::nn::functional::cross_entropy(x, t), 1e-4, 1e-3));
  loss.backward();
  for (double g : x.grad().to(kd::kFloat64).to_vector<double>()) CHECK(std::isfinite(g));
}
