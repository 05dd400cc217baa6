// ch10.ex3 — dead-code elimination: walk the graph from its outputs back, and keep what they need.
//
// jit::detail::live_nodes (kindling/jit/pieces.hpp): jit::eliminate_dead_code
// (lib/src/jit/compile_passes.cpp) calls it, checks there is one flag per node, and rebuilds the
// graph from the nodes it keeps.
#include "kindling/jit/pieces.hpp"

#include <algorithm>

#include "kindling/jit/compile.hpp"

namespace kindling::jit::detail {

std::vector<bool> live_nodes(const Graph& g) {
  // BEGIN SOLUTION ex3: one pass in reverse topological order (users before producers)
  std::vector<bool> live(g.values.size(), false);  // by value id: needed by an output
  for (int o : g.outputs) live[static_cast<std::size_t>(o)] = true;
  std::vector<bool> keep(g.nodes.size(), false);
  for (std::size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    keep[i] = std::any_of(n.outputs.begin(), n.outputs.end(),
                          [&](int o) { return live[static_cast<std::size_t>(o)]; });
    if (keep[i])
      for (int v : n.inputs) live[static_cast<std::size_t>(v)] = true;  // its inputs are needed
  }
  return keep;
  // END SOLUTION
}

}  // namespace kindling::jit::detail
