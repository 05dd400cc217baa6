// to_dot: the backward graph in Graphviz's DOT language, drawn the way torchviz draws it
// (arrows point the way the forward pass went: from the inputs to the output). GradientFlow: the
// same graph after a backward, arrows reversed, each node with its step number and its gradient.
#include "kindling/autograd/graphviz.hpp"

#include <cstdio>
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

// Every node of the graph below `root`, each once (an explicit stack: graphs can be deep).
std::vector<Node*> nodes_below(Node* root) {
  std::vector<Node*> order;
  if (!root) return order;
  std::unordered_set<const Node*> seen{root};
  std::vector<Node*> stack{root};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (const Edge& e : n->next_functions())
      if (e.function && seen.insert(e.function.get()).second) stack.push_back(e.function.get());
  }
  return order;
}

// A gradient as a label line: its values when there are at most 4, else its shape and norm.
std::string grad_label(const Tensor& g) {
  if (!g.defined()) return "no gradient";
  const Tensor v = g.detach().to(kFloat64).contiguous();
  char buf[48];
  if (v.numel() <= 4) {
    std::string out = v.dim() == 0 ? "" : "[";
    const double* p = v.data_ptr<double>();
    for (std::int64_t i = 0; i < v.numel(); ++i) {
      std::snprintf(buf, sizeof buf, "%s%.4g", i ? ", " : "", p[i]);
      out += buf;
    }
    return v.dim() == 0 ? out : out + "]";
  }
  std::snprintf(buf, sizeof buf, " norm %.4g", v.norm().item<double>());
  return size_label(g.shape()) + buf;
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

struct GradientFlow::State {
  std::unordered_map<const Node*, Visit> visits;
  int steps = 0;
};

GradientFlow::GradientFlow(const Tensor& output) : output_(output), state_(std::make_shared<State>()) {
  if (!output.defined()) throw ValueError("GradientFlow: the output tensor is undefined.");
  // One pre-hook per output of every node: it records the gradient before the node's formula runs.
  // A node's first hook call is the moment the engine runs it, which numbers the steps.
  for (Node* n : nodes_below(output.grad_fn().get())) {
    for (std::uint32_t k = 0; k < n->num_outputs(); ++k) {
      std::weak_ptr<State> weak = state_;
      handles_.push_back(register_prehook(*n, [weak, n, k](const Tensor& g) {
        if (auto st = weak.lock()) {
          auto [it, first] = st->visits.try_emplace(n);
          if (first) {
            it->second.step = ++st->steps;
            it->second.grads.resize(n->num_outputs());
          }
          it->second.grads[k] = g.detach().clone();
        }
        return Tensor();  // watch only: keep the gradient as it is
      }, k));
    }
  }
}

GradientFlow::~GradientFlow() {
  for (auto& h : handles_) h.remove();
}

const GradientFlow::Visit* GradientFlow::visit(const Node* node) const {
  auto it = state_->visits.find(node);
  return it == state_->visits.end() ? nullptr : &it->second;
}

std::string GradientFlow::to_dot(const std::map<std::string, Tensor>& params) const {
  std::unordered_map<const TensorImpl*, std::string> names;
  for (const auto& [name, t] : params)
    if (t.defined()) names[t.impl()] = name;
  std::ostringstream dot;
  dot << "digraph {\n"
      << "  graph [size=\"12,12\"]\n"
      << "  node [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]\n"
      << "  edge [color=firebrick fontcolor=firebrick fontname=monospace fontsize=9]\n";
  const std::string out_id = id_of(output_.impl());
  dot << "  " << out_id << " [label=\"" << size_label(output_.shape()) << "\" fillcolor=darkolivegreen1]\n";
  Node* root = output_.grad_fn().get();
  if (root) dot << "  " << out_id << " -> " << id_of(root) << "\n";
  for (Node* n : nodes_below(root)) {
    const Visit* v = visit(n);
    std::string label = v ? std::to_string(v->step) + ". " : std::string("not run: ");
    const char* fill = "lightgrey";
    if (const auto* acc = dynamic_cast<const AccumulateGrad*>(n)) {
      const Tensor& leaf = acc->variable();
      auto it = names.find(leaf.impl());
      label += (it != names.end() ? it->second + ".grad += " : std::string("leaf ") + size_label(leaf.shape()) + " += ");
      fill = "lightblue";
    } else {
      label += std::string(n->name()) + "\\nin: ";
    }
    if (v) {
      for (std::size_t k = 0; k < v->grads.size(); ++k) label += (k ? "\\n" : "") + grad_label(v->grads[k]);
    }
    dot << "  " << id_of(n) << " [label=\"" << label << "\" fillcolor=" << fill << "]\n";
    for (const Edge& e : n->next_functions())
      if (e.function) dot << "  " << id_of(n) << " -> " << id_of(e.function.get()) << "\n";
  }
  dot << "}\n";
  return dot.str();
}

}  // namespace kindling::autograd
