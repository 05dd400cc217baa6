// Chapter 3 — state_dict, saving to safetensors, loading: create the model first, then
// load the values into it. Strict loading refuses a file that does not fit the model,
// naming every key.
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

// The same network with its layers under other names (say, a refactored version of the
// code).
struct RenamedNet : kd::nn::Module {
  kd::nn::Linear hidden{784, 128};
  kd::nn::Linear out{128, 10};
  RenamedNet() {
    register_module("hidden", hidden);
    register_module("out", out);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return out(kd::relu(hidden(x))); }
};

int main() {
  kd::manual_seed(0);
  // [snippet: state-dict]
  SimpleNet model;
  kd::StateDict sd = model.state_dict();  // names → tensors (views of the weights)
  for (const auto& [name, t] : sd)
    std::cout << name << " " << kd::shape_str(t.shape()) << "\n";
  kd::save(sd, "ch03_model.safetensors");  // torch.save(model.state_dict(), path)
  // [end]

  // [snippet: load]
  SimpleNet restored;  // 1. create the model (fresh random weights)
  kd::Tensor x = kd::rand({2, 784});
  std::cout << "before loading, same output: " << std::boolalpha
            << kd::equal(model(x), restored(x)) << "\n";
  restored.load_state_dict(kd::load("ch03_model.safetensors", kd::kCPU));  // 2. load
  std::cout << "after loading,  same output: " << kd::equal(model(x), restored(x))
            << "\n";
  // [end]

  // [snippet: strict]
  RenamedNet other;
  try {
    other.load_state_dict(kd::load("ch03_model.safetensors"));
  } catch (const kd::ValueError& e) {
    std::cout << "ValueError: " << e.what() << "\n";
  }
  auto result =
      other.load_state_dict(kd::load("ch03_model.safetensors"), /*strict=*/false);
  std::cout << "strict=false: " << result.missing_keys.size() << " missing, "
            << result.unexpected_keys.size() << " unexpected — and nothing loaded\n";
  // [end]

  // [snippet: shape]
  kd::StateDict wrong = model.state_dict();
  wrong.insert("fc2.weight", kd::zeros({5, 128}));  // a head for 5 classes, not 10
  try {
    restored.load_state_dict(wrong);
  } catch (const kd::ValueError& e) {
    std::cout << "ValueError: " << e.what() << "\n";
  }
  // [end]
  std::remove("ch03_model.safetensors");
}
