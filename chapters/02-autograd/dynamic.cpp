// Chapter 2 — define-by-run: the graph is whatever the forward pass happened to do. A
// forward with a data-dependent branch, a loop whose length is chosen at run time, and
// a print in the middle; each iteration records a new graph, and the program prints
// which one.
#include <kindling/autograd.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace kd = kindling;

// The chain of node names from `t` down the first input of each node: "TanhBackward0 <-
// MulBackward0 ...".
std::string chain(const kd::Tensor& t) {
  std::string out;
  for (auto node = t.grad_fn(); node;) {
    out += (out.empty() ? "" : " <- ") + std::string(node->name());
    const auto& next = node->next_functions();
    node = next.empty() ? nullptr : next[0].function;
  }
  return out;
}

// [snippet: forward]
// Ordinary C++: a branch on the data, a loop, a print. Autograd records only what
// actually ran.
kd::Tensor forward(const kd::Tensor& x, const kd::Tensor& w, int repeats) {
  kd::Tensor h = x * w;             // x, w: [4]
  if (h.sum().item<float>() > 0) {  // data-dependent branch
    h = h.tanh();
  } else {
    h = h.relu() * 2;
  }
  for (int i = 0; i < repeats; ++i) h = h * w;  // loop length decided at run time
  std::cout << "  inside forward: h.grad_fn() = " << h.grad_fn()->name() << "\n";
  return h.sum();
}
// [end]

int main() {
  kd::manual_seed(0);
  kd::Tensor w = kd::randn({4}).requires_grad_();
  // [snippet: loop]
  for (int step = 0; step < 3; ++step) {
    kd::Tensor x = kd::randn({4});
    kd::Tensor loss = forward(x, w, /*repeats=*/step);  // a new graph every iteration
    std::cout << "step " << step << ": loss = " << loss.item<float>() << "\n"
              << "  graph: " << chain(loss) << "\n";
    loss.backward();  // walks this iteration's graph, then frees it
    w.grad().zero_();
  }
  // [end]
}
