#pragma once
// Shared by chapter 2's graded tests. Expected gradients always come from the library's autograd
// (kd::autograd::grad; the library is parity-tested against PyTorch) or from invariants, never from
// numbers typed in here.
#include <catch2/catch.hpp>
#include <kindling/autograd.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ch02/autograd_exercises.hpp"

namespace ch02_grading {
namespace kd = kindling;
namespace ex = kindling::exercises::ch02;
using NodePtr = std::shared_ptr<kd::autograd::Node>;

/// A fresh leaf that requires grad, with the values of `t`.
inline kd::Tensor leaf(const kd::Tensor& t) { return t.detach().clone().requires_grad_(); }

/// What the library's autograd says: d(sum(out * grad_out))/d inputs, i.e. the vector-Jacobian product.
inline std::vector<kd::Tensor> library_grads(const kd::Tensor& out, const std::vector<kd::Tensor>& inputs,
                                             const kd::Tensor& grad_out) {
  return kd::autograd::grad({out}, inputs, {grad_out}, /*retain_graph=*/false, /*allow_unused=*/true);
}

/// Same shape, dtype and (close) values; explains the difference when not.
inline void check_close(const kd::Tensor& got, const kd::Tensor& expected, const std::string& what,
                        double rtol = 1e-5, double atol = 1e-6) {
  INFO(what);
  REQUIRE(got.defined());
  INFO("expected shape " << kd::shape_str(expected.shape()) << ", got " << kd::shape_str(got.shape()));
  REQUIRE(got.shape() == expected.shape());
  INFO("expected dtype " << kd::dtype_name(expected.dtype()) << ", got " << kd::dtype_name(got.dtype()));
  REQUIRE(got.dtype() == expected.dtype());
  INFO("expected " << expected << "\ngot      " << got);
  REQUIRE(kd::allclose(got, expected, rtol, atol));
}

/// A random shape of rank 0..max_rank with sizes 1..max_size.
inline kd::Shape random_shape(kd::Generator& gen, int max_rank = 4, int max_size = 4) {
  kd::Shape s(gen.randint(0, max_rank + 1));
  for (auto& x : s) x = gen.randint(1, max_size + 1);
  return s;
}

/// A shape that broadcasts to `full`: drop some leading dims, set some sizes to 1.
inline kd::Shape broadcastable_to(const kd::Shape& full, kd::Generator& gen) {
  const std::size_t drop = full.empty() ? 0 : static_cast<std::size_t>(gen.randint(0, full.size() + 1));
  kd::Shape s(full.begin() + static_cast<std::ptrdiff_t>(drop), full.end());
  for (auto& x : s)
    if (gen.randint(0, 2) == 1) x = 1;
  return s;
}

/// Every node reachable from root (the reference set ex4's answer must equal), and the edges.
inline std::vector<NodePtr> reachable(const NodePtr& root) {
  std::vector<NodePtr> out;
  if (!root) return out;
  std::unordered_set<const kd::autograd::Node*> seen{root.get()};
  std::vector<NodePtr> stack{root};
  while (!stack.empty()) {
    NodePtr n = stack.back();
    stack.pop_back();
    out.push_back(n);
    for (const auto& e : n->next_functions())
      if (e.is_valid() && seen.insert(e.function.get()).second) stack.push_back(e.function);
  }
  return out;
}

/// Checks ex4's answer on the graph below `root`: every reachable node exactly once, root first, and
/// every node before each of its inputs' nodes.
inline void check_topological(const NodePtr& root, const std::string& graph) {
  INFO("graph: " << graph);
  const std::vector<NodePtr> order = ex::topological_order(root);
  const std::vector<NodePtr> all = reachable(root);
  INFO("the graph has " << all.size() << " nodes; topological_order returned " << order.size());
  REQUIRE(order.size() == all.size());
  std::unordered_map<const kd::autograd::Node*, std::size_t> position;
  for (std::size_t i = 0; i < order.size(); ++i) {
    REQUIRE(order[i] != nullptr);
    INFO("node " << order[i]->name() << " appears twice");
    REQUIRE(position.emplace(order[i].get(), i).second);
  }
  for (const auto& n : all) {
    INFO("node " << n->name() << " reachable from the root is missing");
    REQUIRE(position.count(n.get()) == 1);
  }
  REQUIRE(order.front().get() == root.get());
  for (const auto& n : order) {
    for (const auto& e : n->next_functions()) {
      if (!e.is_valid()) continue;
      INFO(n->name() << " (position " << position[n.get()] << ") must come before its input " << e.function->name()
                     << " (position " << position[e.function.get()] << ")");
      REQUIRE(position[n.get()] < position[e.function.get()]);
    }
  }
}

/// The Jacobian [out.numel(), x.numel()] from the library's autograd (reference for ex5).
inline kd::Tensor library_jacobian(const ex::Function& f, const std::vector<kd::Tensor>& inputs, std::size_t wrt) {
  const kd::Tensor out = f(inputs);
  kd::Tensor jac = kd::zeros({out.numel(), inputs[wrt].numel()}, {.dtype = kd::kFloat64});
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    kd::Tensor onehot = kd::zeros({out.numel()}, {.dtype = out.dtype()});
    onehot.index_put_({i}, 1.0);
    const auto g = kd::autograd::grad({out}, {inputs[wrt]}, {onehot.view(out.shape())}, true, true);
    if (g[0].defined()) jac.select(0, i).copy_(g[0].reshape({-1}));
  }
  return jac;
}

/// Functions of float64 inputs with correct gradients (the library's), for ex5.
struct NamedFunction {
  std::string name;
  ex::Function f;
  std::vector<kd::Tensor> inputs;
};

inline std::vector<NamedFunction> good_functions(std::uint64_t seed) {
  kd::Generator gen(seed);
  auto r = [&](const kd::Shape& s) { return kd::randn(s, {.dtype = kd::kFloat64}, &gen).requires_grad_(); };
  auto pos = [&](const kd::Shape& s) {
    return (kd::rand(s, {.dtype = kd::kFloat64}, &gen) + 0.5).detach().requires_grad_();
  };
  return {
      {"tanh(a * b) with b broadcast", [](const auto& in) { return (in[0] * in[1]).tanh(); }, {r({2, 3}), r({3})}},
      {"a.matmul(b).sum(1)", [](const auto& in) { return in[0].matmul(in[1]).sum(1); }, {r({3, 4}), r({4, 2})}},
      {"softmax(x, 1)", [](const auto& in) { return kd::softmax(in[0], 1); }, {r({2, 4})}},
      {"a / b + exp(a)", [](const auto& in) { return in[0] / in[1] + in[0].exp(); }, {r({5}), pos({5})}},
      {"sigmoid(x).mean() (0-d output)", [](const auto& in) { return in[0].sigmoid().mean(); }, {r({3, 2})}},
      {"x.t() * y with y not requiring grad",
       [](const auto& in) { return in[0].t() * in[1]; },
       {r({3, 2}), kd::randn({2, 3}, {.dtype = kd::kFloat64}, &gen)}},
  };
}

/// value x^2 with gradient 3 (the detach trick): backward is wrong, values are right.
inline kd::Tensor wrong_square(const kd::Tensor& x) { return (x * x).detach() + 3 * x - (3 * x).detach(); }

}  // namespace ch02_grading
