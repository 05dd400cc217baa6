// ch02.ex4 — the engine's step 1: which nodes a backward run reaches, and how many gradients each
// must wait for.
//
// backward() (lib/src/autograd/engine.cpp) calls this first, then seeds the roots and runs every node
// whose count has dropped to 0, decrementing the counts of the nodes below it as it goes. So the
// count is what makes the order topological: a node shared by two paths (h in h * h.exp()) runs only
// after both have delivered their gradient. Declared in lib/src/autograd/pieces.hpp.
#include "autograd/pieces.hpp"

namespace kindling::autograd {

void count_dependencies(std::span<Node* const> roots, EngineSlots& slots) {
  // BEGIN SOLUTION ex4: an iterative depth-first walk, counting every edge
  // An explicit stack instead of recursion: a 100,000-op chain would need 100,000 stack frames.
  // Reused from run to run (runs are serialised by the engine): a long graph allocates nothing.
  thread_local std::vector<Node*> stack;
  stack.clear();
  for (Node* r : roots) {
    if (slots.visit(r)) stack.push_back(r);
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_functions()) {
      if (!e.function) continue;  // an input that needs no gradient
      const bool first = slots.visit(e.function.get());
      ++slots.task(e.function.get()).dependencies;  // every edge, first visit or not
      if (first) stack.push_back(e.function.get());
    }
  }
  // END SOLUTION
}

}  // namespace kindling::autograd
