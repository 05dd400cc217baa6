// Choosing a loss. (1) CrossEntropyLoss takes raw logits: putting a Softmax in front of
// it, measured. (2) MSELoss vs SmoothL1Loss on a regression with outliers.
#include "common.hpp"

namespace {

// SimpleNet with an optional (wrong) softmax at the end.
struct MaybeSoftmaxNet : SimpleNet {
  bool extra_softmax = false;
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor logits = SimpleNet::forward(x);
    // The mistake: probabilities squashed into [0, 1] where logits belong.
    return extra_softmax ? logits.softmax(1) : logits;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int epochs = int_flag(argc, argv, "epochs", 2);
  auto train_set = fashion(kd::data::Split::Train);
  auto test_set = fashion(kd::data::Split::Test);
  kd::data::DataLoader test_loader(test_set, {.batch_size = 500});

  std::printf("SimpleNet, Adam lr 1e-3, %d epochs:\n", epochs);
  for (bool extra : {false, true}) {
    kd::manual_seed(0);  // identical weights and batches for both runs
    kd::data::DataLoader train_loader(train_set, {.batch_size = 32, .shuffle = true});
    MaybeSoftmaxNet model;
    model.extra_softmax = extra;
    kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
    // [snippet: criterion]
    kd::nn::CrossEntropyLoss criterion;  // = log_softmax + nll_loss: give it raw logits
    // [end]
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
      std::printf("  %-26s epoch %d: train loss %.4f, test accuracy %.2f %%\n",
                  extra ? "softmax -> CrossEntropy:" : "logits -> CrossEntropy:", epoch,
                  train_loss.mean(), 100 * test.accuracy);
    }
  }
  // With probabilities p in [0, 1] as "logits", the best case (p = 1 for the true
  // class, 0 for the other nine) still costs -log(e / (e + 9)) = log(1 + 9/e).
  std::printf(
      "(with the extra softmax the loss can never go below log(1 + 9/e) = %.4f:\n"
      " the values CrossEntropy sees are squashed into [0, 1], so its gradients"
      " stay small)\n",
      std::log(1 + 9 / std::exp(1.0)));

  // Regression: y = 2x + 1 plus noise, 5 % of the targets wild outliers (+30).
  kd::manual_seed(1);
  const std::int64_t n = 400;
  kd::Tensor x = kd::rand({n, 1}) * 4 - 2;
  kd::Tensor y = x * 2 + 1 + kd::randn({n, 1}) * 0.1;
  kd::Tensor outlier = (kd::rand({n, 1}) < 0.05).to(kd::kFloat32);
  y = y + outlier * 30;
  std::printf(
      "\nfitting y = 2x + 1 with %.0f outliers among %lld points"
      " (full-batch SGD, 300 steps):\n",
      outlier.sum().item<double>(), static_cast<long long>(n));
  for (int which = 0; which < 2; ++which) {
    kd::manual_seed(2);
    kd::nn::Linear line(1, 1);
    kd::optim::SGD optimizer(line.parameters(), {.lr = 0.1});
    kd::nn::MSELoss mse;
    kd::nn::SmoothL1Loss smooth_l1;  // quadratic below |error| < 1, linear above
    for (int step = 0; step < 300; ++step) {
      optimizer.zero_grad();
      kd::Tensor pred = line(x);
      kd::Tensor loss = which == 0 ? mse(pred, y) : smooth_l1(pred, y);
      loss.backward();
      optimizer.step();
    }
    std::printf("  %-12s slope %.3f, intercept %.3f   (truth: 2, 1)\n",
                which == 0 ? "MSELoss:" : "SmoothL1Loss:", line.weight.item<double>(),
                line.bias.item<double>());
  }
  return 0;
}
