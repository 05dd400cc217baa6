// ex4 — a topological order of the backward graph, found without recursion.
#include "ch02/autograd_exercises.hpp"

#include <algorithm>
#include <unordered_set>

namespace kindling::exercises::ch02 {

std::vector<std::shared_ptr<autograd::Node>> topological_order(const std::shared_ptr<autograd::Node>& root) {
  // BEGIN SOLUTION ex4: depth-first search with an explicit stack; emit a node after its inputs, then reverse
  // Post-order DFS: a node is finished only after every node below it is finished, so the finish order
  // lists inputs before the nodes that use them; reversed, every node precedes its inputs.
  std::vector<std::shared_ptr<autograd::Node>> finished;
  if (!root) return finished;
  struct Frame {
    std::shared_ptr<autograd::Node> node;
    std::size_t next_edge = 0;  // which of node->next_functions() to look at next
  };
  std::unordered_set<const autograd::Node*> visited{root.get()};
  std::vector<Frame> stack{{root}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    const auto& edges = top.node->next_functions();
    if (top.next_edge < edges.size()) {
      const autograd::Edge& e = edges[top.next_edge++];
      if (e.is_valid() && visited.insert(e.function.get()).second) stack.push_back({e.function});
      continue;
    }
    finished.push_back(std::move(top.node));
    stack.pop_back();
  }
  std::reverse(finished.begin(), finished.end());
  return finished;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch02
