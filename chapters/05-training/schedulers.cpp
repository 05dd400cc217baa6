// Learning-rate schedules: StepLR (decay every N epochs, blind) vs ReduceLROnPlateau
// (decay when the validation loss stops improving). SGD with momentum on a 6,000-image
// slice, identical start. Writes the learning rates and validation losses per epoch to
// ch05_schedulers.csv (the book plots them).
#include <fstream>

#include "common.hpp"

int main(int argc, char** argv) {
  const int epochs = int_flag(argc, argv, "epochs", 15);
  auto train_full = fashion(kd::data::Split::Train);
  auto test_set = fashion(kd::data::Split::Test);
  std::vector<std::int64_t> idx(6000);
  for (std::int64_t i = 0; i < 6000; ++i) idx[i] = i;
  kd::data::Subset<kd::data::FashionMNIST> train_set(train_full, idx);
  kd::data::DataLoader test_loader(test_set, {.batch_size = 500});

  std::ofstream csv("ch05_schedulers.csv");
  csv << "schedule,epoch,lr,val_loss,val_accuracy\n";
  for (int which = 0; which < 2; ++which) {
    kd::manual_seed(0);
    kd::data::DataLoader train_loader(train_set, {.batch_size = 32, .shuffle = true});
    SimpleNet model;
    kd::optim::SGD optimizer(model.parameters(), {.lr = 0.05, .momentum = 0.9});
    kd::nn::CrossEntropyLoss criterion;
    // [snippet: schedulers]
    kd::optim::StepLR step_lr(optimizer, /*step_size=*/5, /*gamma=*/0.1);
    kd::optim::ReduceLROnPlateau plateau(
        optimizer, {.mode = kd::optim::ReduceLROnPlateauOptions::Mode::Min,
                    .factor = 0.1,
                    .patience = 2});
    // [end]
    const char* name = which == 0 ? "StepLR(5, 0.1)" : "ReduceLROnPlateau(0.1, 2)";
    std::printf("%s\n", name);
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      const double lr = optimizer.lr();
      model.train();
      for (auto& [images, labels] : train_loader) {
        optimizer.zero_grad();
        kd::Tensor loss = criterion(model(images), labels);
        loss.backward();
        optimizer.step();
      }
      const EvalResult val = evaluate(model, test_loader);
      // [snippet: scheduler-step]
      if (which == 0)
        step_lr.step();  // every epoch, whatever happened
      else
        plateau.step(val.loss);  // fed with the validation loss
      // [end]
      std::printf("  epoch %2d: lr %.0e, val loss %.4f, val accuracy %.2f %%\n", epoch,
                  lr, val.loss, 100 * val.accuracy);
      csv << name << "," << epoch << "," << lr << "," << val.loss << "," << val.accuracy
          << "\n";
    }
  }
  return 0;
}
