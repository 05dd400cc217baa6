// Chapter 3 — model.to(...) converts every registered parameter and buffer in place. A
// tensor made by hand inside the model is not registered, so it stays behind — and the
// next forward fails. This book's machine has no GPU, so this program shows the same
// trap with a dtype (float32 → float64).
#include <kindling/nn.hpp>

#include <iostream>

namespace kd = kindling;
namespace F = kd::nn::functional;

// [snippet: hand-made]
struct Projector : kd::nn::Module {
  kd::nn::Linear fc{8, 4};
  kd::nn::BatchNorm1d bn{4};
  kd::Tensor proj = kd::randn({2, 4});  // made by hand: a plain member, not registered

  Projector() {
    register_module("fc", fc);
    register_module("bn", bn);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return F::linear(bn(fc(x)), proj);
  }
};
// [end]

// [snippet: registered]
struct FixedProjector : kd::nn::Module {
  kd::nn::Linear fc{8, 4};
  kd::nn::BatchNorm1d bn{4};
  kd::Tensor proj;

  FixedProjector() {
    register_module("fc", fc);
    register_module("bn", bn);
    // saved and moved with the model, not trained
    proj = register_buffer("proj", kd::randn({2, 4}));
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return F::linear(bn(fc(x)), proj);
  }
};
// [end]

int main() {
  kd::manual_seed(0);
  // [snippet: to-dtype]
  Projector model;
  kd::Tensor x = kd::randn({5, 8}, {.dtype = kd::kFloat64});
  model.to(kd::kFloat64);  // PyTorch: model.to(torch.float64), or model.double()
  std::cout << "fc.weight: " << kd::dtype_name(model.fc.weight.dtype())
            << ", bn.running_mean: " << kd::dtype_name(model.bn.running_mean.dtype())
            << ", bn.num_batches_tracked: "
            << kd::dtype_name(model.bn.num_batches_tracked.dtype())
            << ", proj: " << kd::dtype_name(model.proj.dtype()) << "\n";
  try {
    model(x);
  } catch (const kd::DTypeError& e) {
    std::cout << "DTypeError: " << e.what() << "\n";
  }
  // [end]

  // [snippet: fixed-run]
  FixedProjector fixed;
  fixed.to(kd::kFloat64);
  std::cout << "registered proj: " << kd::dtype_name(fixed.proj.dtype()) << ", output "
            << kd::shape_str(fixed(x).shape()) << " "
            << kd::dtype_name(fixed(x).dtype()) << "\n";
  for (const auto& [name, b] : fixed.named_buffers())
    std::cout << "  buffer " << name << "\n";
  // [end]
}
