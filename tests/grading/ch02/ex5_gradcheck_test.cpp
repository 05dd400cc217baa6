// ch02.ex5 — a finite-difference gradient checker: both Jacobians compared with the library's autograd,
// and the checker must pass correct functions and catch a planted wrong gradient.
#include "ch02_grading.hpp"

using namespace ch02_grading;

TEST_CASE("ch02.ex5: numerical_jacobian agrees with autograd", "[ch02][ex5][pts=7]") {
  for (const auto& c : good_functions(51)) {
    for (std::size_t k = 0; k < c.inputs.size(); ++k) {
      if (!c.inputs[k].requires_grad()) continue;
      INFO(c.name << ", w.r.t. input " << k);
      const std::vector<double> before = c.inputs[k].to_vector<double>();
      const kd::Tensor expected = library_jacobian(c.f, c.inputs, k);
      check_close(ex::numerical_jacobian(c.f, c.inputs, k), expected, "numerical Jacobian", 1e-4, 1e-6);
      INFO("numerical_jacobian must leave the input's values as they were");
      REQUIRE(c.inputs[k].to_vector<double>() == before);
    }
  }
}

TEST_CASE("ch02.ex5: numerical_jacobian uses central differences", "[ch02][ex5][pts=3]") {
  // x^3 at x = 1 with eps = 1e-2: central differences give 3 + eps^2 (error 1e-4), forward
  // differences 3 + 3 eps + eps^2 (error 3e-2). The exact derivative comes from autograd.
  const kd::Tensor x = kd::ones({1}, {.dtype = kd::kFloat64, .requires_grad = true});
  const ex::Function cube = [](const std::vector<kd::Tensor>& in) { return in[0] * in[0] * in[0]; };
  const double exact = library_jacobian(cube, {x}, 0).item<double>();
  const double got = ex::numerical_jacobian(cube, {x}, 0, 1e-2).item<double>();
  INFO("exact " << exact << ", numerical_jacobian with eps 1e-2 gave " << got);
  REQUIRE(std::fabs(got - exact) < 1e-3);
}

TEST_CASE("ch02.ex5: analytical_jacobian agrees with autograd and leaves .grad alone", "[ch02][ex5][pts=6]") {
  for (const auto& c : good_functions(52)) {
    for (std::size_t k = 0; k < c.inputs.size(); ++k) {
      if (!c.inputs[k].requires_grad()) continue;
      INFO(c.name << ", w.r.t. input " << k);
      check_close(ex::analytical_jacobian(c.f, c.inputs, k), library_jacobian(c.f, c.inputs, k),
                  "analytical Jacobian", 1e-9, 1e-12);
      for (const auto& t : c.inputs) REQUIRE_FALSE(t.grad().defined());
    }
  }
}

TEST_CASE("ch02.ex5: check_gradients passes correct gradients, like kd::autograd::gradcheck", "[ch02][ex5][pts=4]") {
  for (const auto& c : good_functions(53)) {
    INFO(c.name);
    REQUIRE(kd::autograd::gradcheck(c.f, c.inputs).ok);  // the library agrees these are right
    REQUIRE(ex::check_gradients(c.f, c.inputs));
  }
}

TEST_CASE("ch02.ex5: check_gradients catches a planted wrong gradient", "[ch02][ex5][pts=5]") {
  kd::Generator gen(54);
  const kd::Tensor x = kd::randn({4}, {.dtype = kd::kFloat64}, &gen).requires_grad_();
  const kd::Tensor y = kd::randn({4}, {.dtype = kd::kFloat64}, &gen).requires_grad_();
  const ex::Function bad = [](const std::vector<kd::Tensor>& in) { return wrong_square(in[0]); };
  REQUIRE_FALSE(kd::autograd::gradcheck(bad, {x}).ok);  // the library sees it too
  REQUIRE_FALSE(ex::check_gradients(bad, {x}));
  // Wrong only w.r.t. the second input: every input that requires grad must be checked.
  const ex::Function bad2 = [](const std::vector<kd::Tensor>& in) { return in[0].tanh() * wrong_square(in[1]); };
  REQUIRE_FALSE(kd::autograd::gradcheck(bad2, {x, y}).ok);
  REQUIRE_FALSE(ex::check_gradients(bad2, {x, y}));
  // ...but an input that does not require grad is not checked.
  const kd::Tensor y_data = y.detach();
  REQUIRE(ex::check_gradients(bad2, {x, y_data}));
}
