// The standard training loop, line for line: SimpleNet on Fashion-MNIST with Adam (lr
// 1e-3), CrossEntropyLoss and batches of 32; evaluation on the test set after every
// epoch; the weights saved for inference and a checkpoint saved for resuming. The
// history goes to ch05_train_history.jsonl (the book plots it). The full run is
// `--epochs 20` (target: >= 88 % test accuracy); the book's own run is shorter.
// book: run-args --epochs 2
// book: timeout 300
#include <chrono>

#include "common.hpp"

int main(int argc, char** argv) {
  const int num_epochs = int_flag(argc, argv, "epochs", 20);
  kd::manual_seed(0);  // same weights, same shuffles, same numbers every run

  // [snippet: setup]
  namespace T = kd::data::transforms;
  // uint8 [28, 28] -> float [1, 28, 28] in [0, 1], then Fashion-MNIST's mean and std
  T::Compose transform({T::ToTensor(), T::Normalize({0.2860}, {0.3530})});
  auto train_set = kd::data::FashionMNIST(kd::data::Split::Train, transform);
  auto test_set = kd::data::FashionMNIST(kd::data::Split::Test, transform);
  kd::data::DataLoader train_loader(
      train_set, {.batch_size = 32, .shuffle = true, .num_workers = 2});
  kd::data::DataLoader test_loader(test_set, {.batch_size = 256});  // no shuffle

  SimpleNet model;
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  kd::optim::StepLR scheduler(optimizer, /*step_size=*/3, /*gamma=*/0.3);  // lr x 0.3
  // [end]
  std::printf("train: %lld images, test: %lld images, %lld batches per epoch\n",
              static_cast<long long>(train_set.size()),
              static_cast<long long>(test_set.size()),
              static_cast<long long>(train_loader.size()));

  kd::train::TrainingLog log(num_epochs);
  for (int epoch = 1; epoch <= num_epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    const double lr = optimizer.lr();  // the lr this epoch trains with
    // [snippet: train-loop]
    model.train();
    double total_loss = 0;
    for (auto& [images, labels] : train_loader) {
      optimizer.zero_grad();                         // 1. forget the last gradients
      kd::Tensor outputs = model(images);            // 2. forward: [32, 10] logits
      kd::Tensor loss = criterion(outputs, labels);  // 3. a 0-d tensor with a graph
      loss.backward();                               // 4. backward: fills every .grad
      optimizer.step();                              // 5. update the weights
      total_loss += loss.item<double>();             // a plain number: the graph can go
    }
    // [end]
    scheduler.step();  // once per epoch, after the optimizer's steps
    const EvalResult test = evaluate(model, test_loader);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    log.log({.epoch = epoch,
             .lr = lr,
             .train_loss = total_loss / train_loader.size(),
             .val_loss = test.loss,
             .val_accuracy = test.accuracy,
             .seconds = seconds,
             .peak_rss_mb = kd::train::peak_rss_mb(),
             .tensor_mb = kd::memory::allocated_bytes() / 1048576.0});
  }

  // [snippet: save]
  kd::save(model.state_dict(), "ch05_model_weights.safetensors");  // for inference
  kd::train::save_checkpoint({.model = model.state_dict(),         // for resuming
                              .optimizer = optimizer.state_dict(),
                              .epoch = num_epochs,
                              .loss = log.history().back().train_loss,
                              .rng_state = kd::default_generator().get_state()},
                             "ch05_checkpoint.safetensors");
  // [end]
  log.write_jsonl("ch05_train_history.jsonl");

  const double accuracy = log.history().back().val_accuracy;
  std::printf(
      "SimpleNet test accuracy after %d epochs: %.2f %% (target >= 88 %%: %s)\n",
      num_epochs, 100 * accuracy, accuracy >= 0.88 ? "met" : "NOT met");
  return 0;
}
