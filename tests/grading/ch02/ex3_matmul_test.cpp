// ch02.ex3 — backward of matmul, 2-D and batched with broadcast batch dimensions, against autograd.
#include "ch02_grading.hpp"

using namespace ch02_grading;

namespace {
void check(const kd::Shape& sa, const kd::Shape& sb, kd::Generator& gen, kd::DType dt = kd::kFloat32) {
  const kd::Tensor a = kd::randn(sa, {.dtype = dt, .requires_grad = true}, &gen);
  const kd::Tensor b = kd::randn(sb, {.dtype = dt, .requires_grad = true}, &gen);
  const kd::Tensor out = a.matmul(b);
  const kd::Tensor grad = kd::randn(out.shape(), {.dtype = dt}, &gen);
  const auto expected = library_grads(out, {a, b}, grad);
  INFO("a " << kd::shape_str(sa) << " @ b " << kd::shape_str(sb) << " -> " << kd::shape_str(out.shape()));
  const auto [ga, gb] = ex::matmul_backward(grad, a.detach(), b.detach());
  check_close(ga, expected[0], "gradient w.r.t. a", 1e-4, 1e-5);
  check_close(gb, expected[1], "gradient w.r.t. b", 1e-4, 1e-5);
}
}  // namespace

TEST_CASE("ch02.ex3: 2-D matmul, the Linear layer's product", "[ch02][ex3][pts=8]") {
  kd::Generator gen(31);
  check({32, 784}, {784, 128}, gen);
  check({4, 3}, {3, 5}, gen);
  check({1, 6}, {6, 1}, gen);
  check({5, 2}, {2, 7}, gen, kd::kFloat64);
}

TEST_CASE("ch02.ex3: batched matmul with the same batch dimensions", "[ch02][ex3][pts=6]") {
  kd::Generator gen(32);
  check({3, 4, 5}, {3, 5, 2}, gen);
  check({2, 3, 2, 4}, {2, 3, 4, 3}, gen, kd::kFloat64);
}

TEST_CASE("ch02.ex3: batch dimensions that broadcast are summed away", "[ch02][ex3][pts=6]") {
  kd::Generator gen(33);
  check({6, 4, 5}, {5, 3}, gen);        // a batch of inputs times one weight matrix
  check({4, 5}, {6, 5, 3}, gen);
  check({2, 1, 3, 4}, {5, 4, 2}, gen);  // batch [2, 1] with [5] -> [2, 5]
  check({1, 3, 4}, {7, 4, 2}, gen, kd::kFloat64);
}
