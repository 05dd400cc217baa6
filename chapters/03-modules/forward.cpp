// Chapter 3 — forward() is ordinary C++: print intermediate shapes, branch, loop. And a
// ReLU *module* (a registered child, shown in the tree) next to the ReLU *function*
// (just a call inside forward).
#include <kindling/nn.hpp>

#include <iostream>

namespace kd = kindling;
namespace F = kd::nn::functional;

// [snippet: plain-code]
struct DebugNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128}, hidden{128, 128}, fc2{128, 10};
  int extra_layers = 0;  // chosen at run time: the graph is rebuilt by every forward
  bool verbose = false;

  DebugNet() {
    register_module("fc1", fc1);
    register_module("hidden", hidden);
    register_module("fc2", fc2);
  }

  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = F::relu(fc1(x));  // the function: nothing to register
    if (verbose)
      std::cout << "  after fc1: " << kd::shape_str(h.shape()) << ", mean "
                << h.mean().item<float>() << "\n";
    for (int i = 0; i < extra_layers; ++i)
      h = F::relu(hidden(h));  // a loop reuses one layer
    if (x.size(0) == 1)
      std::cout << "  (a single image: batch of one)\n";  // a branch on the data
    return fc2(h);
  }
};
// [end]

// [snippet: relu-module]
struct WithModule : kd::nn::Module {  // ReLU as a module: a child in the tree
  kd::nn::Linear fc{4, 3};
  kd::nn::ReLU relu;
  WithModule() {
    register_module("fc", fc);
    register_module("relu", relu);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return relu(fc(x)); }
};

struct WithFunction : kd::nn::Module {  // ReLU as a function: invisible in the tree
  kd::nn::Linear fc{4, 3};
  WithFunction() { register_module("fc", fc); }
  kd::Tensor forward(const kd::Tensor& x) override { return F::relu(fc(x)); }
};
// [end]

int main() {
  kd::manual_seed(0);
  // [snippet: run-debug]
  DebugNet net;
  net.verbose = true;
  for (int layers : {0, 2}) {
    net.extra_layers = layers;
    kd::Tensor y = net(kd::rand({layers == 0 ? 8 : 1, 784}));
    std::cout << "extra_layers=" << layers << " -> " << kd::shape_str(y.shape())
              << "\n";
  }
  // [end]

  // [snippet: run-relu]
  WithModule a;
  WithFunction b;
  b.load_state_dict(a.state_dict());  // same names: copy a's weights into b
  kd::Tensor x = kd::randn({2, 4});
  std::cout << a << "\n" << b << "\n";
  std::cout << "same output: " << std::boolalpha << kd::equal(a(x), b(x)) << "\n";
  // [end]
}
