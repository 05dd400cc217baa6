// Chapter 2 — the graph autograd records. Builds loss = tanh(x * w + b).sum(), prints
// what every tensor recorded (requires_grad, is_leaf, grad_fn), walks the graph through
// next_functions, writes it as a Graphviz picture (ch02_graph.dot, shown in the book),
// runs backward and checks the gradients against the chain rule written out by hand. A
// GradientFlow watches that backward and draws what it sent (ch02_gradflow.dot).
#include <kindling/autograd.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kd = kindling;

void describe(const char* name, const kd::Tensor& t) {
  std::printf("%-5s requires_grad=%-5s is_leaf=%-5s grad_fn=%s\n", name,
              t.requires_grad() ? "true" : "false", t.is_leaf() ? "true" : "false",
              t.grad_fn() ? t.grad_fn()->name() : "None");
}

// [snippet: walk]
// Prints the graph below `node` as a tree: one line per edge in next_functions.
void print_graph(const std::shared_ptr<kd::autograd::Node>& node, int depth = 0) {
  std::string line(2 * depth, ' ');
  line += node->name();
  if (auto* acc = dynamic_cast<kd::autograd::AccumulateGrad*>(node.get()))
    line += "  (leaf " + kd::shape_str(acc->variable().shape()) + ")";
  else
    line += "  saves " + std::to_string(node->saved_tensors().size()) + " tensor(s)";
  std::cout << line << "\n";
  for (const kd::autograd::Edge& edge : node->next_functions()) {
    if (edge.is_valid())
      print_graph(edge.function, depth + 1);
    else
      std::cout << std::string(2 * depth + 2, ' ')
                << "None  (an input that needs no gradient)\n";
  }
}
// [end]

int main() {
  // [snippet: record]
  kd::Tensor x = kd::tensor({1.0, 2.0, 3.0});  // data: no gradient wanted
  kd::Tensor w = kd::tensor({0.5, -1.0, 0.25}, {.requires_grad = true});  // parameters
  kd::Tensor b = kd::tensor({0.1, 0.2, 0.3}, {.requires_grad = true});
  kd::Tensor h = x * w + b;   // h: [3]
  kd::Tensor z = h.tanh();    // z: [3]
  kd::Tensor loss = z.sum();  // loss: []  (0-d)
  // [end]
  std::cout << "-- what each tensor recorded\n";
  for (auto [name, t] :
       {std::pair{"x", x}, {"w", w}, {"b", b}, {"h", h}, {"z", z}, {"loss", loss}})
    describe(name, t);

  std::cout << "-- the graph, walked from loss.grad_fn() through next_functions\n";
  print_graph(loss.grad_fn());

  // [snippet: dot]
  std::ofstream("ch02_graph.dot") << kd::autograd::to_dot(loss, {{"w", w}, {"b", b}});
  // [end]

  // The order backward runs the nodes: every node is created after the nodes of its
  // inputs, so sorting by creation number (sequence_nr), newest first, puts each node
  // before its inputs.
  std::vector<std::shared_ptr<kd::autograd::Node>> nodes, stack{loss.grad_fn()};
  std::set<kd::autograd::Node*> seen{loss.grad_fn().get()};
  while (!stack.empty()) {
    auto n = stack.back();
    stack.pop_back();
    nodes.push_back(n);
    for (const auto& e : n->next_functions())
      if (e.is_valid() && seen.insert(e.function.get()).second)
        stack.push_back(e.function);
  }
  std::sort(nodes.begin(), nodes.end(),
            [](auto& a, auto& c) { return a->sequence_nr() > c->sequence_nr(); });
  std::cout << "-- an order backward can run them in (newest first):";
  for (const auto& n : nodes) std::cout << " " << n->name();
  std::cout << "\n";

  // [snippet: flow]
  kd::autograd::GradientFlow flow(loss);  // watches the next backward of this graph
  // [end]
  // [snippet: backward]
  loss.backward();
  std::cout << "w.grad = " << w.grad() << "\n";
  std::cout << "b.grad = " << b.grad() << "\n";
  std::cout << "x.grad defined? " << (x.grad().defined() ? "yes" : "no") << "\n";
  // [end]

  // [snippet: flow-dot]
  std::ofstream("ch02_gradflow.dot") << flow.to_dot({{"w", w}, {"b", b}});
  // [end]

  // [snippet: by-hand]
  // The chain rule by hand: d loss/d z = 1, d z/d h = 1 - tanh(h)^2,
  // d h/d w = x, d h/d b = 1.
  kd::NoGradGuard no_grad;  // this arithmetic is not part of any graph
  kd::Tensor dz_dh = 1 - z * z;
  std::cout << "by hand: dL/dw = " << x * dz_dh << "\n";
  std::cout << "by hand: dL/db = " << dz_dh << "\n";
  std::cout << "agree with backward: " << std::boolalpha
            << (kd::allclose(w.grad(), x * dz_dh) && kd::allclose(b.grad(), dz_dh))
            << "\n";
  // [end]
}
