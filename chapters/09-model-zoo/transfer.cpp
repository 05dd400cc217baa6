// The moves of transfer learning on torchvision's ResNet-18: a new head, a frozen
// backbone, BatchNorm kept in eval() while the head trains, and parameter groups with
// their own rates.
#include <iostream>

#include "common.hpp"

int main() {
  kd::manual_seed(0);
  // [snippet: new-head]
  auto model = models::resnet18({.num_classes = 1000});
  std::cout << "before: " << *model->fc << "\n";
  model->fc = kd::nn::Linear(512, 5);  // 5 classes: a new, randomly initialised head
  std::cout << "after:  " << *model->fc << "\n";
  // [end]

  // [snippet: freeze]
  model->requires_grad_(false);  // every parameter of the backbone: frozen
  // A module made now trains (its parameters require grad).
  model->fc = kd::nn::Linear(512, 5);
  std::printf("parameters: %lld, of which trainable: %lld\n",
              static_cast<long long>(model->num_parameters()),
              static_cast<long long>(model->num_parameters(/*only_trainable=*/true)));
  // [end]

  // [snippet: frozen-bn]
  const kd::Tensor x = kd::randn({4, 3, 64, 64}) * 3 + 1;
  kd::Tensor mean0 = model->bn1.running_mean.clone();
  // Everything in training mode: BatchNorm updates its running statistics.
  model->train();
  (*model)(x);
  std::printf("train():         bn1.running_mean moved by %.4f\n",
              (model->bn1.running_mean - mean0).abs().max().item<double>());
  mean0 = model->bn1.running_mean.clone();
  // The frozen backbone in eval(): BatchNorm uses its statistics, and keeps them; the
  // head alone in training mode (it would matter for a Dropout).
  model->eval();
  model->fc->train();
  (*model)(x);
  std::printf("eval() + head:   bn1.running_mean moved by %.4f\n",
              (model->bn1.running_mean - mean0).abs().max().item<double>());
  // [end]

  // [snippet: refused]
  try {
    kd::optim::SGD everything(model->parameters(), {.lr = 0.1});
  } catch (const kd::Error& e) {
    std::printf("\n%s\n\n", e.what());
  }
  // [end]

  // [snippet: groups]
  model->layer4.requires_grad_(true);  // unfreeze the last stage too
  kd::optim::SGD optimizer(model->fc->parameters(), {.lr = 0.1, .momentum = 0.9});
  optimizer.add_param_group(model->layer4.parameters(), {.lr = 0.01, .momentum = 0.9});
  for (std::size_t g = 0; g < optimizer.num_param_groups(); ++g)
    std::printf("group %zu: lr %g\n", g, optimizer.lr(g));
  // [end]
  std::printf("trainable now: %lld parameters\n\n",
              static_cast<long long>(model->num_parameters(true)));

  // [snippet: features]
  // The outputs of named stages, by name (torchvision's create_feature_extractor).
  auto body = kd::vision::create_feature_extractor(model, {"layer2", "layer4"});
  kd::NoGradGuard no_grad;
  for (const auto& [name, t] : body(x))  // x: [4, 3, 64, 64]
    std::printf("%s: %s\n", name.c_str(), kd::shape_str(t.shape()).c_str());
  // [end]
}
