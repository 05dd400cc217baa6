// Chapter 3 — SimpleNet as a module: layers are members created with the module,
// forward() says how data flows through them, and printing the model shows the tree
// PyTorch's print(model) shows.
#include <kindling/nn.hpp>

#include <iostream>

namespace kd = kindling;

// [snippet: simplenet]
struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};  // the layers are members: created with the model
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};

  SimpleNet() {
    // Tell the base class about them (Python does this in __setattr__).
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }

  kd::Tensor forward(const kd::Tensor& x) override {  // x: [batch, 784]
    return fc2(relu(fc1(x)));                         // → [batch, 10]
  }
};
// [end]

int main() {
  kd::manual_seed(0);
  // [snippet: run]
  SimpleNet model;
  kd::Tensor images = kd::rand({32, 784});  // a stand-in: 32 flattened 28×28 images
  kd::Tensor logits = model(images);  // operator() calls forward(), like __call__
  std::cout << "input " << kd::shape_str(images.shape()) << " -> logits "
            << kd::shape_str(logits.shape()) << ", grad_fn " << logits.grad_fn()->name()
            << "\n";
  std::cout << model << "\n";
  // [end]
}
