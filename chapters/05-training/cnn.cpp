// A small convolutional network for Fashion-MNIST: the same training loop, a better
// model. Target: at least 90 % test accuracy (the MLP stops around 88-89 %).
// book: run-args --epochs 1
// book: timeout 600
#include <chrono>

#include "common.hpp"

// [snippet: cnn]
struct SmallCNN : kd::nn::Module {
  kd::nn::Conv2d conv1{1, 16, 3, {.padding = 1}};  // [N, 1, 28, 28]  -> [N, 16, 28, 28]
  kd::nn::Conv2d conv2{
      16, 32, 3, {.padding = 1}};  // [N, 16, 14, 14] -> [N, 32, 14, 14]
  kd::nn::MaxPool2d pool{2};       // halves height and width
  kd::nn::ReLU relu;
  kd::nn::Linear fc{32 * 7 * 7, 10};
  SmallCNN() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("pool", pool);
    register_module("relu", relu);
    register_module("fc", fc);
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = pool(relu(conv1(x)));  // [N, 16, 14, 14]
    h = pool(relu(conv2(h)));             // [N, 32, 7, 7]
    return fc(h.flatten(1));              // [N, 1568] -> [N, 10]
  }
};
// [end]

int main(int argc, char** argv) {
  const int epochs = int_flag(argc, argv, "epochs", 4);
  kd::manual_seed(0);
  namespace T = kd::data::transforms;
  T::Compose transform({T::ToTensor(), T::Normalize({0.2860}, {0.3530})});
  auto train_set = kd::data::FashionMNIST(kd::data::Split::Train, transform);
  auto test_set = kd::data::FashionMNIST(kd::data::Split::Test, transform);
  kd::data::DataLoader train_loader(
      train_set, {.batch_size = 64, .shuffle = true, .num_workers = 1});
  kd::data::DataLoader test_loader(test_set, {.batch_size = 500});

  SmallCNN model;
  std::printf("%s\nparameters: %lld\n", model.to_string().c_str(),
              static_cast<long long>(model.num_parameters()));
  kd::optim::Adam optimizer(model.parameters(), {.lr = 2e-3});
  kd::optim::StepLR scheduler(optimizer, 2, 0.3);
  kd::nn::CrossEntropyLoss criterion;
  kd::train::TrainingLog log(epochs);
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    model.train();
    kd::train::RunningMean train_loss;
    for (auto& [images, labels] : train_loader) {
      optimizer.zero_grad();
      kd::Tensor loss = criterion(model(images), labels);
      loss.backward();
      optimizer.step();
      train_loss.add(loss.item<double>(), labels.size(0));
    }
    const double lr = optimizer.lr();
    scheduler.step();
    const EvalResult test = evaluate(model, test_loader);
    log.log({.epoch = epoch,
             .lr = lr,
             .train_loss = train_loss.mean(),
             .val_loss = test.loss,
             .val_accuracy = test.accuracy,
             .seconds =
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                     .count(),
             .peak_rss_mb = kd::train::peak_rss_mb()});
  }
  const double accuracy = log.history().back().val_accuracy;
  std::printf("CNN test accuracy: %.2f %% (target >= 90 %%: %s)\n", 100 * accuracy,
              accuracy >= 0.90 ? "met" : "NOT met");
  return 0;
}
