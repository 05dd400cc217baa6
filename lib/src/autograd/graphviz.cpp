// to_dot: the backward graph in Graphviz's DOT language, drawn the way torchviz draws it
// (arrows point the way the forward pass went: from the inputs to the output).
#include "kindling/autograd/graphviz.hpp"

#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "kindling/autograd/node.hpp"

namespace kindling::autograd {

namespace {
std::string size_label(const Shape& s) {  // torchviz writes shapes as (3, 4)
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + ")";
}
std::string id_of(const void* p) {
  std::ostringstream os;
  os << "n" << p;
  return os.str();
}
}  // namespace

std::string to_dot(const Tensor& output, const std::map<std::string, Tensor>& params) {
  std::unordered_map<const TensorImpl*, std::string> names;
  for (const auto& [name, t] : params)
    if (t.defined()) names[t.impl()] = name;

  std::ostringstream dot;
  dot << "digraph {\n"
      << "  graph [size=\"12,12\"]\n"
      << "  node [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]\n";
  const std::string out_id = id_of(output.impl());
  dot << "  " << out_id << " [label=\"" << size_label(output.shape()) << "\" fillcolor=darkolivegreen1]\n";
  const auto root = output.grad_fn();
  if (!root) {
    dot << "}\n";
    return dot.str();
  }
  dot << "  " << id_of(root.get()) << " -> " << out_id << "\n";

  std::unordered_set<const Node*> seen{root.get()};
  std::vector<const Node*> stack{root.get()};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (const auto* acc = dynamic_cast<const AccumulateGrad*>(n)) {
      const Tensor& leaf = acc->variable();
      auto it = names.find(leaf.impl());
      const std::string label = (it != names.end() ? it->second + "\\n" : std::string()) + size_label(leaf.shape());
      dot << "  " << id_of(n) << " [label=\"" << label << "\" fillcolor=lightblue]\n";
    } else {
      dot << "  " << id_of(n) << " [label=\"" << n->name() << "\" fillcolor=lightgrey]\n";
    }
    for (const Edge& e : n->next_functions()) {
      if (!e.function) continue;
      dot << "  " << id_of(e.function.get()) << " -> " << id_of(n) << "\n";
      if (seen.insert(e.function.get()).second) stack.push_back(e.function.get());
    }
  }
  dot << "}\n";
  return dot.str();
}

}  // namespace kindling::autograd
