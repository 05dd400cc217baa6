// ch02.ex2 — unbroadcast: the gradient of a broadcast input, checked against the library's autograd
// through expand() (whose backward is exactly this reduction).
#include "ch02_grading.hpp"

using namespace ch02_grading;

namespace {
// What autograd gives an input of `shape` that was broadcast to grad.shape().
kd::Tensor expected_unbroadcast(const kd::Tensor& grad, const kd::Shape& shape) {
  const kd::Tensor x = kd::zeros(shape, {.dtype = grad.dtype(), .requires_grad = true});
  return library_grads(x.expand(grad.shape()), {x}, grad)[0];
}
void check(const kd::Shape& full, const kd::Shape& shape, kd::Generator& gen) {
  const kd::Tensor grad = kd::randn(full, {}, &gen);
  INFO("grad shape " << kd::shape_str(full) << " -> input shape " << kd::shape_str(shape));
  check_close(ex::unbroadcast(grad, shape), expected_unbroadcast(grad, shape), "unbroadcast", 1e-5, 1e-5);
}
}  // namespace

TEST_CASE("ch02.ex2: a bias broadcast over a batch is summed over the batch", "[ch02][ex2][pts=4]") {
  kd::Generator gen(21);
  check({32, 10}, {10}, gen);       // logits + bias
  check({8, 3, 5, 5}, {3, 1, 1}, gen);  // per-channel scale on images
}

TEST_CASE("ch02.ex2: size-1 dimensions are kept with size 1", "[ch02][ex2][pts=4]") {
  kd::Generator gen(22);
  check({3, 4}, {3, 1}, gen);
  check({3, 4}, {1, 4}, gen);
  check({3, 4}, {1, 1}, gen);
  check({2, 3, 4}, {2, 1, 4}, gen);
  check({1, 4}, {1, 4}, gen);  // nothing to sum
}

TEST_CASE("ch02.ex2: scalars and same shapes", "[ch02][ex2][pts=4]") {
  kd::Generator gen(23);
  check({3, 4}, {}, gen);       // a 0-d input (a scalar tensor) gets the sum of everything
  check({}, {}, gen);
  check({5}, {1}, gen);
  check({2, 3}, {2, 3}, gen);   // no broadcasting: the gradient passes through
  check({4, 1, 3}, {1}, gen);
}

TEST_CASE("ch02.ex2: 200 random broadcasts agree with autograd", "[ch02][ex2][pts=5]") {
  kd::Generator gen(24);
  for (int i = 0; i < 200; ++i) {
    const kd::Shape full = random_shape(gen, 5, 4);
    check(full, broadcastable_to(full, gen), gen);
  }
}

TEST_CASE("ch02.ex2: a shape that cannot broadcast throws ShapeError naming both shapes", "[ch02][ex2][pts=3]") {
  const std::vector<std::pair<kd::Shape, kd::Shape>> bad = {{{3, 4}, {4, 1}}, {{3, 4}, {2}}, {{4}, {1, 4}},
                                                            {{2, 3}, {2, 3, 1}}};
  for (const auto& [full, shape] : bad) {
    INFO("grad shape " << kd::shape_str(full) << ", input shape " << kd::shape_str(shape));
    try {
      (void)ex::unbroadcast(kd::zeros(full), shape);
      FAIL("unbroadcast returned instead of throwing kindling::ShapeError");
    } catch (const kd::ShapeError& e) {
      const std::string msg = e.what();
      INFO("message: " << msg);
      CHECK(msg.find(kd::shape_str(full)) != std::string::npos);
      CHECK(msg.find(kd::shape_str(shape)) != std::string::npos);
    }
  }
}
