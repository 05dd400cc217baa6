// Chapter 3 — why layers are modules: parameters() finds every trainable tensor, with
// its dotted name, so an optimizer (chapter 5) can be handed them all at once. A tensor
// created by hand and not registered is invisible to it — and is never trained.
#include <kindling/nn.hpp>

#include <cstdio>
#include <iostream>

namespace kd = kindling;

struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }
};

// [snippet: forgotten]
struct ScaledNet : SimpleNet {
  kd::Tensor scale = kd::ones({10}).requires_grad_();  // made by hand, never registered
  kd::Tensor forward(const kd::Tensor& x) override {
    return SimpleNet::forward(x) * scale;
  }
};
// [end]

int main() {
  kd::manual_seed(0);
  // [snippet: named]
  SimpleNet model;
  for (const auto& [name, p] : model.named_parameters())
    std::printf("%-11s %-11s %7lld values\n", name.c_str(),
                kd::shape_str(p.shape()).c_str(), static_cast<long long>(p.numel()));
  std::printf("total: %lld trainable parameters\n",
              static_cast<long long>(model.num_parameters(true)));
  // [end]

  // [snippet: sgd-by-hand]
  kd::Tensor x = kd::rand({32, 784});
  kd::Tensor loss = model(x).pow(2).mean();  // any scalar will do to get gradients
  loss.backward();
  {
    kd::NoGradGuard no_grad;  // the update itself is not part of the graph
    for (kd::Tensor& p : model.parameters())
      p.sub_(p.grad() * 0.1);  // what SGD's step() does
  }
  std::cout << "loss before " << loss.item<float>() << ", after one step "
            << model(x).pow(2).mean().item<float>() << "\n";
  // [end]

  // [snippet: forgotten-run]
  ScaledNet scaled;
  bool found = false;
  for (const kd::Tensor& p : scaled.parameters()) found |= p.is_same(scaled.scale);
  std::cout << "ScaledNet has " << scaled.parameters().size() << " parameter tensors; "
            << "scale is among them: " << std::boolalpha << found << "\n";
  // [end]
}
