// A residual block with its shapes, and what the shortcut does for the gradients of a
// deep stack: the same 20 blocks run with and without their shortcuts, and chapter 7's
// gradient report gives each layer's gradient norm after one backward. Writes
// ch09_basic_block.dot (the block, with the shapes of this run) and ch09_grad_norms.csv
// (the norm of each block's first convolution, both stacks).
#include <fstream>
#include <map>

#include "common.hpp"

namespace dbg = kd::debug;

namespace {

std::string shape(const kd::Tensor& t) { return kd::shape_str(t.shape()); }

// [snippet: stack]
// A stem and `depth` BasicBlocks of 16 channels at 14x14. With `shortcuts` off, each
// block runs its own layers without adding its input back: the same weights, a plain
// stack.
struct Stack : kd::nn::Module {
  kd::nn::Conv2d conv1{1, 16, 3, {.stride = 2, .padding = 1, .bias = false}};
  kd::nn::BatchNorm2d bn1{16};
  kd::nn::Sequential blocks;
  kd::nn::AdaptiveAvgPool2d avgpool{1};
  kd::nn::Linear fc{16, 10};
  bool shortcuts = true;

  explicit Stack(int depth) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    for (int i = 0; i < depth; ++i)
      blocks.push_back(std::make_shared<models::BasicBlock>(16, 16));
    register_module("blocks", blocks);
    register_module("avgpool", avgpool);
    register_module("fc", fc);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = kd::relu(bn1(conv1(x)));  // [N, 16, 14, 14]
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      auto& b = blocks.at<models::BasicBlock>(static_cast<std::ptrdiff_t>(i));
      if (shortcuts)
        h = b(h);  // relu(bn2(conv2(relu(bn1(conv1(h))))) + h)
      else
        // The same layers, without "+ h".
        h = b.relu(b.bn2(b.conv2(b.relu(b.bn1(b.conv1(h))))));
    }
    return fc(kd::nn::functional::flatten(avgpool(h), 1));
  }
};
// [end]

}  // namespace

int main() {
  kd::manual_seed(0);
  {
    // [snippet: block-shapes]
    // ResNet-18's layer2.0: 64 channels at 56x56 in, 128 at 28x28 out.
    models::BasicBlock block(64, 128, 2, SmallResNet::shortcut(64, 128));
    kd::NoGradGuard no_grad;
    kd::Tensor x = kd::randn({1, 64, 56, 56});
    kd::Tensor a = block.relu(block.bn1(block.conv1(x)));  // 3x3, stride 2
    kd::Tensor b = block.bn2(block.conv2(a));              // 3x3, stride 1
    kd::Tensor s = (*block.downsample)(x);  // 1x1, stride 2, and BatchNorm
    kd::Tensor out = block.relu(b + s);
    // [end]
    std::printf("x %s -> conv1, bn1, relu %s -> conv2, bn2 %s\n", shape(x).c_str(),
                shape(a).c_str(), shape(b).c_str());
    std::printf("x %s -> downsample %s;  relu(branch + shortcut) %s\n",
                shape(x).c_str(), shape(s).c_str(), shape(out).c_str());
    std::printf("block(x) is the same tensor: %s\n\n",
                kd::allclose(block(x), out) ? "yes" : "no");
    std::ofstream dot("ch09_basic_block.dot");
    dot << "digraph block {\n  rankdir=TB; nodesep=0.3; ranksep=0.25;\n"
        << "  node [shape=box, style=\"rounded,filled\", fillcolor=white,"
        << " fontname=\"sans-serif\", fontsize=11];\n"
        << "  edge [fontname=\"monospace\", fontsize=10];\n"
        << "  x [label=\"x\", shape=plaintext, style=\"\"];\n"
        << "  c1 [label=\"conv1 3x3, stride 2\\nbn1, relu\"];\n"
        << "  c2 [label=\"conv2 3x3\\nbn2\"];\n"
        << "  ds [label=\"downsample\\n1x1 conv, stride 2, bn\", "
           "fillcolor=\"#eef2f8\"];\n"
        << "  add [label=\"+\", shape=circle, fillcolor=\"#f3ecdc\"];\n"
        << "  r [label=\"relu\"];\n  out [label=\"out\", shape=plaintext, "
           "style=\"\"];\n"
        << "  x -> c1 [label=\" " << shape(x) << "\"];\n"
        << "  c1 -> c2 [label=\" " << shape(a) << "\"];\n"
        << "  c2 -> add [label=\" " << shape(b) << "\"];\n"
        << "  x -> ds [label=\" " << shape(x) << "\"];\n"
        << "  ds -> add [label=\" " << shape(s) << "\"];\n"
        << "  add -> r;\n  r -> out [label=\" " << shape(out) << "\"];\n}\n";
  }

  // 64 Fashion-MNIST images of all ten classes, and one backward through each stack.
  Images batch;
  {
    Images lo = fashion_classes(kd::data::Split::Train, 0, 7);
    Images hi = fashion_classes(kd::data::Split::Train, 5, 7);
    batch = {kd::cat({lo.x, hi.x}, 0), kd::cat({lo.y, hi.y + 5}, 0)};
  }
  const int depth = 20;
  Stack net(depth);
  std::ofstream csv("ch09_grad_norms.csv");
  csv << "stack,layer,grad_norm\n";
  std::printf("gradient norm after one backward, %d blocks (%d convolutions + stem):\n",
              depth, 2 * depth);
  std::printf("%-16s %12s %12s %12s\n", "", "stem conv1", "block 10", "last block");
  for (bool shortcuts : {true, false}) {
    net.shortcuts = shortcuts;
    net.train();
    net.zero_grad();
    // [snippet: grad-norms]
    kd::nn::CrossEntropyLoss criterion;
    criterion(net(batch.x), batch.y).backward();
    dbg::GradReport report =
        dbg::grad_report(net);  // chapter 7: one line per parameter
    std::map<std::string, double> norm;
    for (const auto& p : report.parameters) norm[p.name] = p.grad.norm;
    // [end]
    const char* name = shortcuts ? "with shortcuts" : "plain";
    for (int i = 0; i < depth; ++i)
      csv << name << ',' << i + 1 << ','
          << norm["blocks." + std::to_string(i) + ".conv1.weight"] << '\n';
    std::printf("%-16s %12.3g %12.3g %12.3g\n", name, norm["conv1.weight"],
                norm["blocks.9.conv1.weight"],
                norm["blocks." + std::to_string(depth - 1) + ".conv1.weight"]);
  }
}
