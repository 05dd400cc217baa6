// to_dot: the graph as Graphviz text, checked structurally and by Graphviz itself.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <kindling/autograd.hpp>

namespace kd = kindling;
using Catch::Matchers::Contains;

TEST_CASE("to_dot: names nodes like PyTorch and labels leaves with their shape") {
  kd::Tensor x = kd::randn({2, 3});
  kd::Tensor w = kd::randn({3, 4}).requires_grad_();
  kd::Tensor b = kd::randn({4}).requires_grad_();
  kd::Tensor loss = (x.matmul(w) + b).relu().sum();
  const std::string dot = kd::autograd::to_dot(loss, {{"w", w}});
  CHECK_THAT(dot, Contains("digraph"));
  for (const char* name : {"SumBackward0", "ReluBackward0", "AddBackward0", "MmBackward0"})
    CHECK_THAT(dot, Contains(name));
  CHECK_THAT(dot, Contains("w\\n(3, 4)"));  // named parameter
  CHECK_THAT(dot, Contains("\"(4)\""));     // unnamed leaf: its shape
  CHECK_THAT(dot, Contains("darkolivegreen1"));
  // 5 edges: Mm->Add, AccW->Mm, AccB->Add, Add->Relu, Relu->Sum, Sum->output = 6.
  std::size_t arrows = 0;
  for (std::size_t p = dot.find("->"); p != std::string::npos; p = dot.find("->", p + 2)) ++arrows;
  CHECK(arrows == 6);
  // Graphviz accepts it (when installed).
  if (std::system("command -v dot > /dev/null 2>&1") == 0) {
    const std::string path = "test_graphviz_output.dot";
    std::ofstream(path) << dot;
    CHECK(std::system(("dot -Tsvg " + path + " -o /dev/null").c_str()) == 0);
    std::remove(path.c_str());
  }
}

// GradientFlow: what one backward sent to every node, and in which order it ran them.
TEST_CASE("GradientFlow: numbers every node in run order and records the gradient it received") {
  kd::Tensor x = kd::randn({2, 3});
  kd::Tensor w = kd::randn({3, 4}).requires_grad_();
  kd::Tensor b = kd::randn({4}).requires_grad_();
  kd::Tensor h = x.matmul(w) + b;  // h: [2, 4]
  kd::Tensor r = h.relu();
  kd::Tensor loss = r.sum();
  h.retain_grad();
  r.retain_grad();
  kd::autograd::GradientFlow flow(loss);
  CHECK_THAT(flow.to_dot(), Contains("not run: SumBackward0"));  // before backward
  loss.backward();

  // Each node's gradient is the one retain_grad() stored for the tensor it produced.
  const auto* sum = flow.visit(loss.grad_fn().get());
  const auto* relu = flow.visit(r.grad_fn().get());
  const auto* add = flow.visit(h.grad_fn().get());
  REQUIRE(sum);
  REQUIRE(relu);
  REQUIRE(add);
  CHECK(sum->step == 1);
  CHECK(kd::allclose(relu->grads[0], r.grad()));
  CHECK(kd::allclose(add->grads[0], h.grad()));
  // A node runs only after every node that uses its output.
  CHECK(sum->step < relu->step);
  CHECK(relu->step < add->step);
  for (const auto& e : h.grad_fn()->next_functions()) {
    REQUIRE(flow.visit(e.function.get()));
    CHECK(flow.visit(e.function.get())->step > add->step);
  }
  const std::string dot = flow.to_dot({{"w", w}, {"b", b}});
  CHECK_THAT(dot, Contains("1. SumBackward0"));
  CHECK_THAT(dot, Contains("w.grad += (3, 4) norm"));  // 12 values: shape and norm
  CHECK_THAT(dot, Contains("b.grad += ["));  // 4 values: written out
  if (std::system("command -v dot > /dev/null 2>&1") == 0) {
    const std::string path = "test_gradflow_output.dot";
    std::ofstream(path) << dot;
    CHECK(std::system(("dot -Tsvg " + path + " -o /dev/null").c_str()) == 0);
    std::remove(path.c_str());
  }
}

TEST_CASE("GradientFlow: a tensor used twice receives the sum, and the hooks leave with the flow") {
  kd::Tensor x = kd::tensor({1.0, 2.0}, {.requires_grad = true});
  kd::Tensor loss = (x * 2.0 + x * 3.0).sum();
  kd::Tensor w_before;
  {
    kd::autograd::GradientFlow flow(loss);
    loss.backward({}, /*retain_graph=*/true);
    // x's AccumulateGrad is reached by both products: it receives 2 + 3 = 5 per element, once.
    const kd::autograd::Node* acc = nullptr;
    for (const auto& e : loss.grad_fn()->next_functions()[0].function->next_functions())
      for (const auto& e2 : e.function->next_functions())
        if (e2.function) acc = e2.function.get();
    REQUIRE(acc);
    REQUIRE(flow.visit(acc));
    CHECK(kd::allclose(flow.visit(acc)->grads[0], kd::tensor({5.0, 5.0})));
    CHECK(kd::allclose(x.grad(), kd::tensor({5.0, 5.0})));  // watching changed nothing
  }
  // The flow is gone: its hooks are out of every node.
  const kd::autograd::NodeHooks* hooks = loss.grad_fn()->hooks();
  CHECK((hooks == nullptr || hooks->pre_hooks.empty()));
  loss.backward();  // still works, nothing recorded anywhere
  CHECK(kd::allclose(x.grad(), kd::tensor({10.0, 10.0})));
}

TEST_CASE("register_prehook: refuses an output the node does not have, and an empty hook") {
  kd::Tensor x = kd::randn({3}).requires_grad_();
  kd::Tensor y = x.exp();
  CHECK_THROWS_AS(kd::autograd::register_prehook(*y.grad_fn(), [](const kd::Tensor&) { return kd::Tensor(); }, 1),
                  kd::ValueError);
  CHECK_THROWS_AS(kd::autograd::register_prehook(*y.grad_fn(), nullptr), kd::ValueError);
  // A pre-hook may replace the gradient, like a tensor hook.
  auto handle = kd::autograd::register_prehook(*y.grad_fn(), [](const kd::Tensor& g) { return g * 0.0; });
  y.sum().backward();
  CHECK(kd::allclose(x.grad(), kd::zeros({3})));
  handle.remove();
}

TEST_CASE("GradientFlow: a tensor hook registered on a leaf afterwards does not push the flow's hook out") {
  kd::Tensor w = kd::tensor({1.0, -2.0}, {.requires_grad = true});
  kd::Tensor loss = (w * 3.0).sum();
  kd::autograd::GradientFlow flow(loss);  // hooks every node, w's AccumulateGrad included
  int calls = 0;
  w.register_hook([&calls](const kd::Tensor&) {
    ++calls;
    return kd::Tensor();
  });
  loss.backward();
  CHECK(calls == 1);
  const std::string dot = flow.to_dot({{"w", w}});
  CHECK_THAT(dot, Contains("w.grad += [3, 3]"));
  CHECK_THAT(dot, !Contains("not run"));
}
