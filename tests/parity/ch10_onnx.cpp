// Chapter 10 parity: the models PyTorch exported in ch10_onnx.py (SimpleNet, a small CNN, torchvision's
// ResNet-18 and MobileNetV2), imported with kd::onnx::load.
#include <kindling/jit.hpp>

#include "parity.hpp"

namespace {
kd::Tensor run(const std::string& name, const kd::Tensor& x) {
  auto model = kd::onnx::load(parity::oracle_dir() + "/" + name + ".onnx");
  kd::NoGradGuard no_grad;
  return (*model)(x);
}
}  // namespace

PARITY_CASE("simplenet/eval") { return run("simplenet", in["x"]); }
PARITY_CASE("cnn/eval") { return run("cnn", in["x"]); }
PARITY_CASE("resnet18/eval") { return run("resnet18", in["x"]); }
PARITY_CASE("mobilenet_v2/eval") { return run("mobilenet_v2", in["x"]); }
