// ch10.ex3 — jit::detail::live_nodes, dead-code elimination: on graphs drawn per run, against
// torch.fx's Graph.eliminate_dead_code on the same graphs, and on a traced module with dead branches.
#include "ch10_grading.hpp"

using namespace ch10_grading;

namespace {
// The twin's graphs inputs_K / nodes_K / outputs_K, K = 0 .. count-1: the nodes each keeps.
void expect_kept(int count) {
  for (int k = 0; k < count; ++k) {
    const std::string s = std::to_string(k);
    const jit::Graph g =
        graph_of(ints_of("inputs_" + s)[0], ints_of("nodes_" + s), ints_of("outputs_" + s));
    grading::expect("kept nodes of graph " + s, flags(jit::detail::live_nodes(g)));
  }
}
}  // namespace

TEST_CASE("dead code: graphs of neg and add, against torch.fx", "[ch10][ex3][pts=10]") { expect_kept(3); }

TEST_CASE("dead code: a node with two outputs is kept for either", "[ch10][ex3][pts=5]") { expect_kept(2); }

namespace {
// Values computed and never used, as a forward written for debugging leaves them.
struct DeadBranches : kd::nn::Module {
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor y = x * 2.0;
    kd::Tensor unused = y.exp();
    kd::Tensor z = y + x;
    kd::Tensor also_unused = (z.sin() * 3.0).tanh();
    return z.tanh();
  }
};
}  // namespace

TEST_CASE("dead code: a traced forward with dead branches", "[ch10][ex3][pts=5]") {
  DeadBranches model;
  const kd::Tensor x = grading::input("x");
  auto g = jit::trace(model, x);
  grading::expect("nodes removed", static_cast<std::int64_t>(jit::eliminate_dead_code(g)));
  const auto graph = std::make_shared<const jit::Graph>(std::move(g));
  kd::NoGradGuard no_grad;
  grading::expect("output", jit::run(graph, {x}).front());
}
