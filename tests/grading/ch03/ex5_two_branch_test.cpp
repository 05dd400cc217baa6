// ch03.ex5 — a two-branch module: registration (names, order), forward and gradients equal to the same
// computation written with the library's functions, and everything that registration makes work.
#include "ch03_grading.hpp"

using namespace ch03_grading;

namespace {
/// The specification, written with library functions on the module's own parameters.
kd::Tensor reference_forward(const kd::Tensor& x, const std::vector<kd::Tensor>& p) {
  // p: branch_a.weight, branch_a.bias, branch_b.weight, branch_b.bias, head.weight, head.bias
  const kd::Tensor a = F::relu(F::linear(x, p[0], p[1]));
  const kd::Tensor b = F::tanh(F::linear(x, p[2], p[3]));
  return F::linear(kd::cat({a, b}, 1), p[4], p[5]);
}
}  // namespace

TEST_CASE("ch03.ex5: three Linear layers registered as branch_a, branch_b, head", "[ch03][ex5][pts=4]") {
  ex::TwoBranchNet net(12, 5, 3);
  REQUIRE(net.branch_a);
  REQUIRE(net.branch_b);
  REQUIRE(net.head);
  // The names the specification asks for, built from the library's own Linear parameter names.
  std::vector<std::string> expected;
  for (const char* layer : {"branch_a", "branch_b", "head"})
    for (const auto& [n, t] : nn::Linear(1, 1).named_parameters(layer)) expected.push_back(n);
  INFO("named_parameters(): " << list_str(names_of(net.named_parameters())) << ", expected " << list_str(expected));
  CHECK(names_of(net.named_parameters()) == expected);
  CHECK(net.branch_a->weight.shape() == kd::Shape{5, 12});
  CHECK(net.branch_b->weight.shape() == kd::Shape{5, 12});
  CHECK(net.head->weight.shape() == kd::Shape{3, 10});
  CHECK(net.num_parameters() == nn::Linear(12, 5).num_parameters() * 2 + nn::Linear(10, 3).num_parameters());
}

TEST_CASE("ch03.ex5: forward = head(cat(relu(branch_a(x)), tanh(branch_b(x))))", "[ch03][ex5][pts=4]") {
  kd::manual_seed(21);
  ex::TwoBranchNet net(12, 5, 3);
  const kd::Tensor x = kd::randn({7, 12});
  check_close(net(x), reference_forward(x, net.parameters()), "forward");
}

TEST_CASE("ch03.ex5: every parameter gets the library's gradient", "[ch03][ex5][pts=4]") {
  kd::manual_seed(22);
  ex::TwoBranchNet net(6, 4, 2);
  const kd::Tensor x = kd::randn({5, 6});
  const kd::Tensor g = kd::randn({5, 2});
  (net(x) * g).sum().backward();
  std::vector<kd::Tensor> copies;
  for (const kd::Tensor& p : net.parameters()) copies.push_back(leaf_copy(p));
  (reference_forward(x, copies) * g).sum().backward();
  const Named params = net.named_parameters();
  for (std::size_t i = 0; i < params.size(); ++i) check_close(params[i].second.grad(), copies[i].grad(), params[i].first + ".grad");
}

TEST_CASE("ch03.ex5: save and load through state_dict, and to(dtype), reach every layer", "[ch03][ex5][pts=3]") {
  kd::manual_seed(23);
  ex::TwoBranchNet a(6, 4, 2), b(6, 4, 2);
  const kd::Tensor x = kd::randn({3, 6});
  b.load_state_dict(a.state_dict());
  check_close(b(x), a(x), "output after load_state_dict");
  a.to(kd::kFloat64);
  for (const auto& [n, p] : a.named_parameters()) {
    INFO(n << " after to(kFloat64)");
    CHECK(p.dtype() == kd::kFloat64);
  }
  CHECK(a(x.to(kd::kFloat64)).dtype() == kd::kFloat64);
}
