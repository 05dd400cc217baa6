// GradScaler's scale over a real float16 run: a small network trained on
// Fashion-MNIST under float16 autocast, with a growth_interval short enough to watch
// the scale climb until a gradient overflows, the step is skipped and the scale
// halves. Every step goes to ch06_loss_scale.csv (step, scale, skipped, loss) for the
// book's figure.
#include <cmath>
#include <fstream>

#include "common.hpp"

namespace amp = kd::amp;

int main() {
  kd::manual_seed(0);
  auto train = kd::data::FashionMNIST(kd::data::Split::Train,
                                      kd::data::transforms::ToTensor());
  kd::data::DataLoader loader(train, {.batch_size = 64, .shuffle = true});
  kd::nn::Sequential model(kd::nn::Linear(784, 128), kd::nn::ReLU(),
                           kd::nn::Linear(128, 10));
  kd::nn::CrossEntropyLoss criterion;
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  std::ofstream csv("ch06_loss_scale.csv");
  csv << "step,scale,skipped,loss\n";
  // [snippet: scaler-run]
  // PyTorch's defaults but growth_interval (2000): the scale tries to grow every 25
  // clean steps, so that a short run shows the whole cycle
  amp::GradScaler scaler({.growth_interval = 25});
  int step = 0, skipped = 0;
  for (auto& [images, labels] : loader) {
    opt.zero_grad();
    kd::Tensor loss;
    {
      amp::AutocastGuard autocast({.dtype = kd::kFloat16});
      loss = criterion(model(images.view({images.size(0), 784})), labels);
    }
    const double scale = scaler.get_scale();
    scaler.scale(loss).backward();
    const bool stepped = scaler.step(opt);
    scaler.update();
    skipped += !stepped;
    csv << step << "," << scale << "," << !stepped << "," << loss.item<double>()
        << "\n";
    if (++step == 400) break;
  }
  // [end]
  std::printf("%d float16 steps, %d skipped (a gradient overflowed), scale now "
              "2^%.0f\n",
              step, skipped, std::log2(scaler.get_scale()));
}
