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
