// ch09.ex4 — fine_tuning_groups and fine_tuning_sgd (which call the piece
// detail::split_for_fine_tuning): the groups' names and rates and every parameter's requires_grad,
// against the same split made by hand in PyTorch on torchvision's resnet18; and one SGD step over the
// groups, against torch.optim.SGD given the same groups.
#include "ch09_grading.hpp"

using namespace ch09_grading;

namespace {

void report(kd::nn::Module& model, const std::vector<models::ParamGroup>& groups) {
  REQUIRE(groups.size() == 2);
  grading::expect("backbone names", join(groups[0].names));
  grading::expect("backbone lr", groups[0].lr);
  grading::expect("head names", join(groups[1].names));
  grading::expect("head lr", groups[1].lr);
  std::vector<std::string> trainable;
  for (const auto& [name, p] : model.named_parameters())
    if (p.requires_grad()) trainable.push_back(name);
  grading::expect("requires_grad", join(trainable));
}

}  // namespace

TEST_CASE("fine_tuning_groups: resnet18 with its stem and layer1 frozen", "[ch09][ex4][pts=6]") {
  auto model = models::resnet18({.num_classes = 10});
  const kd::Tensor lrs = grading::input("lrs");  // [lr, head_lr]
  const auto groups = models::fine_tuning_groups(
      *model, {.head = "fc", .frozen = {"conv1", "bn1", "layer1"}, .lr = lrs[0].item<double>(),
               .head_lr = lrs[1].item<double>()});
  report(*model, groups);
}

TEST_CASE("fine_tuning_groups: a frozen model thaws outside the frozen stages", "[ch09][ex4][pts=5]") {
  auto model = models::resnet18({.num_classes = 10});
  model->requires_grad_(false);  // as after an earlier, deeper freeze
  const auto groups = models::fine_tuning_groups(*model, {.head = "fc", .frozen = lines("frozen"), .lr = 0.001,
                                                          .head_lr = 0.01});
  report(*model, groups);
}

TEST_CASE("fine_tuning_groups: nothing frozen, and everything but the head frozen", "[ch09][ex4][pts=3]") {
  auto model = models::resnet18({.num_classes = 10});
  const auto all = models::fine_tuning_groups(*model, {.head = "fc", .frozen = {}, .lr = 0.01, .head_lr = 0.1});
  grading::expect("all: backbone names", join(all[0].names));
  grading::expect("all: head names", join(all[1].names));
  const auto head_only = models::fine_tuning_groups(
      *model, {.head = "fc", .frozen = {"conv1", "bn1", "layer1", "layer2", "layer3", "layer4"}});
  grading::expect("head only: backbone names", join(head_only[0].names));
  grading::expect("head only: head names", join(head_only[1].names));
}

TEST_CASE("fine_tuning_sgd: one step moves each group at its own rate and the frozen stage not at all",
          "[ch09][ex4][pts=6]") {
  // Linear -> ReLU -> Linear -> ReLU -> Linear: child "0" frozen, "2" the backbone, "4" the head.
  kd::nn::Sequential model(kd::nn::Linear(6, 8), kd::nn::ReLU(), kd::nn::Linear(8, 8), kd::nn::ReLU(),
                           kd::nn::Linear(8, 3));
  load_weights(model);
  auto opt = models::fine_tuning_sgd(model, {.head = "4", .frozen = {"0"}, .lr = 0.05, .head_lr = 0.5},
                                     {.momentum = 0.9});
  for (int step = 0; step < 2; ++step) {
    opt->zero_grad();
    kd::nn::CrossEntropyLoss criterion;
    criterion(model(grading::input("x")), grading::input("y")).backward();
    opt->step();
  }
  for (const auto& [key, t] : model.state_dict()) grading::expect("after: " + key, t);
}
