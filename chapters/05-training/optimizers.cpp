// Adam vs SGD with momentum vs AdamW on the same model, weights and batches.
#include "common.hpp"

namespace {

template <class Optimizer>
void compare(const char* name, Optimizer& optimizer, SimpleNet& model, int epochs,
             kd::data::DataLoader<kd::data::FashionMNIST>& train_loader,
             kd::data::DataLoader<kd::data::FashionMNIST>& test_loader) {
  kd::nn::CrossEntropyLoss criterion;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    model.train();
    kd::train::RunningMean train_loss;
    for (auto& [images, labels] : train_loader) {
      optimizer.zero_grad();
      kd::Tensor loss = criterion(model(images), labels);
      loss.backward();
      optimizer.step();
      train_loss.add(loss.item<double>());
    }
    const EvalResult test = evaluate(model, test_loader);
    std::printf("  %-25s epoch %d: train loss %.4f, test loss %.4f, accuracy %.2f %%\n",
                name, epoch, train_loss.mean(), test.loss, 100 * test.accuracy);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int epochs = int_flag(argc, argv, "epochs", 2);
  auto train_set = fashion(kd::data::Split::Train);
  auto test_set = fashion(kd::data::Split::Test);
  kd::data::DataLoader test_loader(test_set, {.batch_size = 500});
  for (int which = 0; which < 3; ++which) {
    // the same initial weights and the same shuffles for every optimizer
    kd::manual_seed(0);
    kd::data::DataLoader train_loader(train_set, {.batch_size = 32, .shuffle = true});
    SimpleNet model;
    if (which == 0) {
      // [snippet: adam]
      kd::optim::Adam adam(model.parameters(), {.lr = 1e-3});
      // [end]
      compare("Adam lr 1e-3:", adam, model, epochs, train_loader, test_loader);
    } else if (which == 1) {
      // [snippet: sgd]
      kd::optim::SGD sgd(model.parameters(), {.lr = 0.01, .momentum = 0.9});
      // [end]
      compare("SGD lr 0.01 momentum 0.9:", sgd, model, epochs, train_loader,
              test_loader);
    } else {
      // [snippet: adamw]
      kd::optim::AdamW adamw(model.parameters(), {.lr = 1e-3, .weight_decay = 0.01});
      // [end]
      compare("AdamW lr 1e-3 wd 0.01:", adamw, model, epochs, train_loader,
              test_loader);
    }
  }
  return 0;
}
