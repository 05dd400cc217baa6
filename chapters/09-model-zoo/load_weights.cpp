// Loads the weights torchvision's ResNet-18 was given in PyTorch (load_weights.py
// writes them) into Kindling's resnet18, strictly, and compares the logits of the two
// on the same input. Then the same file with one key renamed: a strict load refuses it
// and names the keys.
// book: run-first load_weights.py
#include <cmath>

#include "common.hpp"

int main() {
  // [snippet: load]
  auto model = models::resnet18({.num_classes = 10});
  // Strict: every key of the model in the file and of the file in the model, same
  // shapes.
  model->load_state_dict(kd::load("ch09_resnet18.safetensors"));
  model->eval();  // BatchNorm with the running statistics it loaded
  // [end]
  std::printf("%zu tensors loaded from ch09_resnet18.safetensors\n",
              model->state_dict().size());

  // [snippet: compare]
  kd::StateDict io = kd::load("ch09_resnet18_io.safetensors");  // written by PyTorch
  kd::NoGradGuard no_grad;
  kd::Tensor logits = (*model)(io.at("x"));  // [2, 10]
  const double diff = (logits - io.at("logits")).abs().max().item<double>();
  // [end]
  std::printf("Kindling's logits[0, :5]:   ");
  for (std::int64_t j = 0; j < 5; ++j)
    std::printf(" %.4f", logits[0][j].item<double>());
  std::printf("\nlargest difference from torchvision's logits: %.2g\n\n", diff);
  if (!(diff < 1e-4)) return 1;

  // [snippet: renamed]
  kd::StateDict state_dict = kd::load("ch09_resnet18.safetensors");
  kd::Tensor w = state_dict.at("layer1.0.conv1.weight");
  state_dict.erase("layer1.0.conv1.weight");
  state_dict.insert("layer1.0.conv_1.weight", w);
  try {
    model->load_state_dict(state_dict);
  } catch (const kd::ValueError& e) {
    std::printf("%s\n", e.what());
  }
  // [end]
}
