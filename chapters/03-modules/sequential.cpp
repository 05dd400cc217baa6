// Chapter 3 — Sequential for a fixed stack of layers; a module of your own when data
// takes two paths that are fused again (here: concatenated). Also draws the two-path
// model as a picture (ch03_sequential.dot, shown in the book) from its real module
// tree.
#include <kindling/nn.hpp>

#include <fstream>
#include <iostream>

namespace kd = kindling;

// [snippet: two-path]
struct TwoPathNet : kd::nn::Module {
  kd::nn::Sequential deep{kd::nn::Linear(784, 256), kd::nn::ReLU(),
                          kd::nn::Linear(256, 64), kd::nn::ReLU()};
  kd::nn::Linear shallow{784, 64};  // a shortcut: one layer
  kd::nn::Linear head{128, 10};     // sees both paths: 64 + 64 features

  TwoPathNet() {
    register_module("deep", deep);
    register_module("shallow", shallow);
    register_module("head", head);
  }

  kd::Tensor forward(const kd::Tensor& x) override {  // x: [batch, 784]
    kd::Tensor a = deep(x);                           // [batch, 64]
    kd::Tensor b = kd::relu(shallow(x));              // [batch, 64]
    return head(kd::cat({a, b}, /*dim=*/1));          // [batch, 128] → [batch, 10]
  }
};
// [end]

int main() {
  kd::manual_seed(0);
  // [snippet: sequential]
  kd::nn::Sequential model(kd::nn::Linear(784, 128), kd::nn::ReLU(),
                           kd::nn::Linear(128, 10));
  std::cout << model << "\n";
  std::cout << "output " << kd::shape_str(model(kd::rand({4, 784})).shape())
            << ", first layer " << model.at<kd::nn::Linear>(0).extra_repr() << "\n";
  for (const auto& [name, p] : model.named_parameters()) std::cout << "  " << name;
  std::cout << "\n";
  // [end]

  // [snippet: two-path-run]
  TwoPathNet net;
  std::cout << net << "\n";
  std::cout << "output " << kd::shape_str(net(kd::rand({4, 784})).shape()) << ", "
            << net.num_parameters() << " parameters\n";
  // [end]

  // The picture: one box per module of the tree (named_modules), edges from parent to
  // child.
  std::ofstream dot("ch03_sequential.dot");
  dot << "digraph modules {\n  rankdir=LR; node [shape=box, fontname=\"monospace\", "
         "fontsize=10];\n";
  for (const auto& [name, m] : net.named_modules()) {
    const std::string id = name.empty() ? "root" : name;
    std::string label =
        (name.empty() ? std::string("net") : name) + ": " + m->type_name();
    if (!m->extra_repr().empty()) label += "\\n" + m->extra_repr();
    dot << "  \"" << id << "\" [label=\"" << label << "\"];\n";
    for (const auto& [child, c] : m->named_children())
      dot << "  \"" << id << "\" -> \"" << (name.empty() ? child : name + "." + child)
          << "\";\n";
  }
  dot << "}\n";
}
