// Gradient accumulation: four micro-batches of 16 give the gradient of one batch of 64
// -- if each loss is divided by the number of accumulation steps. Forgetting the
// division multiplies the gradient by 4, which for SGD is the same as a 4x larger
// learning rate.
#include <vector>

#include "common.hpp"

using Batch = std::pair<kd::Tensor, kd::Tensor>;  // inputs [16, 784], labels [16]

// The accumulation loop, over `micro` (one optimizer step every `accumulation_steps`).
template <class Optimizer>
void train(WideNet& model, Optimizer& optimizer, const std::vector<Batch>& micro,
           int accumulation_steps, bool divide) {
  kd::nn::CrossEntropyLoss criterion;
  // [snippet: loop]
  optimizer.zero_grad();
  for (std::size_t i = 0; i < micro.size(); ++i) {
    const auto& [inputs, labels] = micro[i];
    kd::Tensor outputs = model(inputs);
    kd::Tensor loss = criterion(outputs, labels);
    if (divide) loss = loss / accumulation_steps;  // the mean over all micro-batches
    loss.backward();                               // adds into every parameter's .grad
    if ((i + 1) % accumulation_steps == 0) {
      optimizer.step();
      optimizer.zero_grad();
    }
  }
  // [end]
}

// All parameters as one vector, to compare two models.
kd::Tensor flat(WideNet& model) {
  std::vector<kd::Tensor> parts;
  for (const kd::Tensor& p : model.parameters()) parts.push_back(p.detach().flatten());
  return kd::cat(parts);
}

int main() {
  kd::manual_seed(0);
  std::vector<Batch> micro;  // 20 micro-batches of 16 random "images"
  for (int i = 0; i < 20; ++i)
    micro.push_back({kd::randn({16, 784}), kd::randint(0, 10, {16})});

  std::printf("== the gradient of one batch of 64 vs four micro-batches of 16 ==\n");
  // [snippet: gradient]
  kd::nn::CrossEntropyLoss criterion;
  auto gradient = [&](int parts, bool divide) {
    kd::manual_seed(1);
    WideNet model;  // the same initial weights every time
    if (parts == 1) {
      std::vector<kd::Tensor> xs, ys;
      for (int i = 0; i < 4; ++i)
        xs.push_back(micro[i].first), ys.push_back(micro[i].second);
      criterion(model(kd::cat(xs)), kd::cat(ys)).backward();  // one batch of 64
    } else {
      for (int i = 0; i < parts; ++i) {
        kd::Tensor loss = criterion(model(micro[i].first), micro[i].second);
        (divide ? loss / parts : loss).backward();
      }
    }
    return model.fc1.weight.grad().clone();
  };
  const kd::Tensor full = gradient(1, true);
  const kd::Tensor divided = gradient(4, true), undivided = gradient(4, false);
  std::printf("with / 4:    largest difference from the batch of 64: %.2e\n",
              (divided - full).abs().max().item<double>());
  std::printf("without / 4: gradient norm / batch-of-64 norm:        %.4f\n",
              (undivided.pow(2).sum() / full.pow(2).sum()).sqrt().item<double>());
  // [end]

  std::printf(
      "\n== 5 optimizer steps of 4 micro-batches each, from the same weights ==\n");
  // [snippet: trajectory]
  auto run = [&](bool adam, double lr, bool divide) {
    kd::manual_seed(1);
    WideNet model;
    if (adam) {
      kd::optim::Adam optimizer(model.parameters(), {.lr = lr});
      train(model, optimizer, micro, 4, divide);
    } else {
      kd::optim::SGD optimizer(model.parameters(), {.lr = lr});
      train(model, optimizer, micro, 4, divide);
    }
    return flat(model);
  };
  kd::manual_seed(1);
  WideNet start;
  const kd::Tensor w0 = flat(start);
  // how far b ends from a, relative to how far a moved from the start
  auto relative = [&](const kd::Tensor& a, const kd::Tensor& b) {
    return ((b - a).abs().sum() / (a - w0).abs().sum()).item<double>();
  };
  const kd::Tensor sgd = run(false, 0.01, true), sgd_no_div = run(false, 0.01, false);
  const kd::Tensor sgd_lr4 = run(false, 0.04, true);
  const kd::Tensor adam = run(true, 1e-3, true), adam_no_div = run(true, 1e-3, false);
  std::printf("difference / distance moved:\n");
  std::printf("  SGD lr 0.01, without / 4 vs with / 4:        %.4f\n",
              relative(sgd, sgd_no_div));
  std::printf("  SGD lr 0.01 without / 4 vs lr 0.04 with / 4: %.4f\n",
              relative(sgd_lr4, sgd_no_div));
  std::printf("  Adam lr 1e-3, without / 4 vs with / 4:       %.4f\n",
              relative(adam, adam_no_div));
  // [end]
}
