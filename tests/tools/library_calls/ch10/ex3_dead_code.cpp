// A "library call" submission: live_nodes handed to the library's public eliminate_dead_code (on a copy
// of the graph, then reading which nodes survived), which calls this piece again. Must earn nothing.
#include "kindling/jit/compile.hpp"
#include "kindling/jit/pieces.hpp"

namespace kindling::jit::detail {
std::vector<bool> live_nodes(const Graph& g) {
  Graph copy = g;
  for (std::size_t i = 0; i < copy.nodes.size(); ++i) copy.nodes[i].attrs = std::to_string(i);
  eliminate_dead_code(copy);
  std::vector<bool> keep(g.nodes.size(), false);
  for (const Node& n : copy.nodes) keep[std::stoul(n.attrs)] = true;
  return keep;
}
}  // namespace kindling::jit::detail
