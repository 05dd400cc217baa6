#pragma once
// Chapter 5's small CNN as the benchmarks train it (P6 in cnn_train.cpp, P10 in ddp_overlap.cpp):
// conv-relu-pool x2, fc-relu-fc on [batch, 1, 28, 28] images, with the module names of its LibTorch
// and PyTorch twins (bench/peers/p6_cnn_setup.hpp).
#include <kindling/nn.hpp>

namespace bench {

struct CNN : kindling::nn::Module {
  kindling::nn::Conv2d conv1{1, 32, 3, {.padding = 1}};   // [64, 1, 28, 28] -> [64, 32, 28, 28]
  kindling::nn::Conv2d conv2{32, 64, 3, {.padding = 1}};  // [64, 32, 14, 14] -> [64, 64, 14, 14]
  kindling::nn::MaxPool2d pool{2};
  kindling::nn::ReLU relu;
  kindling::nn::Linear fc1{3136, 128};
  kindling::nn::Linear fc2{128, 10};
  CNN() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("pool", pool);
    register_module("relu", relu);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  kindling::Tensor forward(const kindling::Tensor& x) override {
    kindling::Tensor h = pool(relu(conv1(x)));  // [64, 32, 14, 14]
    h = pool(relu(conv2(h)));                   // [64, 64, 7, 7]
    return fc2(relu(fc1(h.flatten(1))));        // [64, 10]
  }
};

}  // namespace bench
