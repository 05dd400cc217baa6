// Good on train, bad on validation: a model with Dropout and BatchNorm evaluated
// without eval(). The doctor names it; model.eval() fixes it.
#include "common.hpp"

namespace {

struct DropNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 256};
  kd::nn::BatchNorm1d bn{256};
  kd::nn::ReLU relu;
  kd::nn::Dropout drop{0.5};
  kd::nn::Linear fc2{256, 10};
  DropNet() {
    register_module("fc1", fc1);
    register_module("bn", bn);
    register_module("relu", relu);
    register_module("drop", drop);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    return fc2(drop(relu(bn(fc1(x.view({x.size(0), 784}))))));
  }
};

kd::nn::CrossEntropyLoss criterion;

// [snippet: evaluate]
// Accuracy on a validation batch; `use_eval` is the line people forget.
double validate(DropNet& model, const kd::Tensor& x, const kd::Tensor& y,
                bool use_eval) {
  if (use_eval) model.eval();
  const double acc = accuracy(model, x, y);
  model.train();
  return acc;
}
// [end]

}  // namespace

int main() {
  auto train_set = fashion_subset(kd::data::Split::Train, 1024);
  kd::data::DataLoader loader(train_set, {.batch_size = 64, .shuffle = true});
  auto val_set = fashion_subset(kd::data::Split::Test, 256);
  // validation in small batches of 8 (a phone app classifies a few images at a time)
  kd::data::DataLoader val_loader(val_set, {.batch_size = 8});

  kd::manual_seed(0);
  DropNet model;
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  for (int epoch = 1; epoch <= 3; ++epoch) {
    for (auto& [images, labels] : loader) {
      opt.zero_grad();
      criterion(model(images), labels).backward();
      opt.step();
    }
    double with_eval = 0, without = 0;
    std::int64_t batches = 0;
    for (auto& [images, labels] : val_loader) {
      without += validate(model, images, labels, false);
      with_eval += validate(model, images, labels, true);
      ++batches;
    }
    std::printf(
        "epoch %d: validation accuracy without eval() %5.1f %%, with eval() %5.1f %%\n",
        epoch, without / batches, with_eval / batches);
  }

  auto [x, y] = *val_loader.begin();
  // [snippet: doctor-eval]
  dbg::DoctorOptions checks;
  checks.evaluate = [&](const kd::Tensor& batch) {
    kd::NoGradGuard no_grad;
    return model(batch);  // the evaluation as written: no model.eval()
  };
  auto adam = [](const std::vector<kd::Tensor>& params) {
    return std::make_unique<kd::optim::Adam>(params,
                                             kd::optim::AdamOptions{.lr = 1e-3});
  };
  std::printf("%s",
              dbg::doctor(model, criterion, adam, x, y, checks).to_string().c_str());
  // [end]
}
