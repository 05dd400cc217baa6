// The habit that catches most of the failures above before they cost an hour: validate
// small first. Run the doctor on one batch, overfit a tiny subset end to end, then
// scale up -- here on chapter 5's SimpleNet, which is healthy, and on a training step
// that forgot zero_grad().
#include "common.hpp"

int main() {
  kd::nn::CrossEntropyLoss criterion;
  auto adam = [](const std::vector<kd::Tensor>& params) {
    return std::make_unique<kd::optim::Adam>(params,
                                             kd::optim::AdamOptions{.lr = 1e-3});
  };
  auto tiny = fashion_subset(kd::data::Split::Train, 64);
  auto [x, y] = *kd::data::DataLoader(tiny, {.batch_size = 64}).begin();

  kd::manual_seed(0);
  SimpleNet model;
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  // [snippet: doctor]
  dbg::DoctorOptions checks;
  checks.train_step = [&](const kd::Tensor& images, const kd::Tensor& labels) {
    optimizer.zero_grad();
    kd::Tensor loss = criterion(model(images), labels);
    loss.backward();
    optimizer.step();
    return loss.item<double>();
  };
  auto report = dbg::doctor(model, criterion, adam, x, y, checks);
  std::printf("%s", report.to_string().c_str());
  // [end]

  std::printf("the same step without zero_grad():\n");
  checks.train_step = [&](const kd::Tensor& images, const kd::Tensor& labels) {
    kd::Tensor loss = criterion(model(images), labels);  // no optimizer.zero_grad()
    loss.backward();
    optimizer.step();
    return loss.item<double>();
  };
  std::printf("%s",
              dbg::doctor(model, criterion, adam, x, y, checks).to_string().c_str());

  // [snippet: small-first]
  // 1. a tiny subset, end to end: the loss must go near zero
  for (int step = 0; step <= 60; ++step) {
    optimizer.zero_grad();
    kd::Tensor loss = criterion(model(x), y);
    loss.backward();
    optimizer.step();
    if (step % 20 == 0)
      std::printf("tiny subset, step %2d: loss %.4f\n", step, loss.item<double>());
  }
  // 2. then scale up: more data, a validation split, real epochs
  auto train_set = fashion_subset(kd::data::Split::Train, 4096);
  auto val_set = fashion_subset(kd::data::Split::Test, 1024);
  // [end]
  kd::manual_seed(0);
  SimpleNet fresh;
  kd::optim::Adam opt(fresh.parameters(), {.lr = 1e-3});
  kd::data::DataLoader loader(train_set, {.batch_size = 64, .shuffle = true});
  auto [vx, vy] = *kd::data::DataLoader(val_set, {.batch_size = 1024}).begin();
  for (int epoch = 1; epoch <= 2; ++epoch) {
    fresh.train();
    for (auto& [images, labels] : loader) {
      opt.zero_grad();
      criterion(fresh(images), labels).backward();
      opt.step();
    }
    fresh.eval();
    std::printf("4096 images, epoch %d: validation accuracy %.1f %%\n", epoch,
                accuracy(fresh, vx, vy));
  }
}
