// Chapter 6's milestone: your library trains SimpleNet on Fashion-MNIST in mixed precision -- the
// forward under AutocastGuard (float16), the loss scaled by your GradScaler (ex1's unscale and inf
// check, ex2's growth and backoff), the hidden layer checkpointed (ex3 recomputes it in backward).
// Two epochs of Adam; the program writes its trained weights and milestone.py evaluates them on the
// 10,000 test images, which this program never sees (IN_DIR holds the training set only).
//
// Accuracy alone would pass a library whose pieces are wrong where this run does not go (an inf that
// is never found because a NaN always comes with it, a scale that grows one step late, a recomputation
// that draws new random numbers where the segment has none). So the program also writes what each
// piece did, and the checker judges it against what it computes itself, with values drawn per run:
//   scales.npy      every step's (skipped, scale after update()), at the checker's growth_interval: the
//                   checker replays PyTorch's rule on the skips (ex2), and the run must overflow and skip
//   probe_*.npy     a batch of the checker's, through a checkpointed fc1 -> ReLU -> dropout(0.5) in float32,
//                   scaled by the checker's scale: the unscaled gradients (ex1, ex3: the checker computes
//                   them from the weights and the forward's hidden layer) and that hidden layer
//   inf_*.npy       the same batch with one gradient element set to +inf at the checker's place: the step
//                   must be skipped (the weights after it must be the written ones) and the scale halved
//
//   milestone_ch06 IN_DIR OUT_DIR   (IN_DIR: the MNIST-format training files and the checker's probe*.npy;
//                                    writes OUT_DIR/<param>.npy and the files above)
#include "milestone_main.hpp"
#include <kindling/kindling.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <limits>
#include <utility>
#include <vector>

namespace kd = kindling;

struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  // x: [batch, 1, 28, 28] -> [batch, 10] logits; the hidden layer [batch, 128] is recomputed in backward
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = kd::utils::checkpoint([this](const kd::Tensor& t) { return relu(fc1(t)); },
                                         x.view({x.size(0), 784}));
    return fc2(h);
  }
};

int run(const std::string& in, const std::string& out);
int main(int argc, char** argv) { return milestone::main_of(argc, argv, run); }

int run(const std::string& in, const std::string& out) {
  kd::manual_seed(0);
  namespace T = kd::data::transforms;
  T::Compose transform({T::ToTensor(), T::Normalize({0.2860}, {0.3530})});
  kd::data::MNIST train_set(in, kd::data::Split::Train, transform);
  kd::data::DataLoader train_loader(train_set, {.batch_size = 64, .shuffle = true, .num_workers = 2});

  // The checker's numbers for this run: growth_interval, the probe's scale, where its inf goes.
  const kd::Tensor config = kd::load_npy(in + "/probe_config.npy", kd::kFloat64);
  const auto growth_interval = static_cast<std::int64_t>(config[0].item<double>());
  const double probe_scale = config[1].item<double>();
  const auto inf_param = static_cast<std::int64_t>(config[2].item<double>());
  const auto inf_index = static_cast<std::int64_t>(config[3].item<double>());

  SimpleNet model;
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  // PyTorch's init_scale 65536, and a growth_interval short enough that the scale climbs into overflow
  // (and is backed off) many times in two epochs.
  kd::amp::GradScaler scaler({.growth_interval = growth_interval});
  std::vector<double> trajectory;  // per step: skipped (0/1), the scale after update()
  for (int epoch = 1; epoch <= 2; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    model.train();
    double total = 0;
    std::int64_t skipped = 0;
    for (auto& [images, labels] : train_loader) {
      optimizer.zero_grad();
      kd::Tensor loss;
      {
        kd::amp::AutocastGuard autocast({.dtype = kd::kFloat16});
        loss = criterion(model(images), labels);  // float16 matmuls, a float32 loss
      }
      scaler.scale(loss).backward();
      const bool stepped = scaler.step(optimizer);
      if (!stepped) ++skipped;  // an overflow: no step, a smaller scale
      scaler.update();
      trajectory.push_back(stepped ? 0.0 : 1.0);
      trajectory.push_back(scaler.get_scale());
      total += loss.item<double>();
    }
    std::printf("epoch %d: train loss %.4f, %lld step(s) skipped, scale %g (%.1f s)\n", epoch,
                total / train_loader.size(), static_cast<long long>(skipped), scaler.get_scale(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // The trained weights, float32: the grader loads them into its own SimpleNet and evaluates it on the
  // test images.
  const std::pair<const char*, const kd::Tensor*> weights[] = {
      {"fc1.weight", &model.fc1.weight}, {"fc1.bias", &model.fc1.bias},
      {"fc2.weight", &model.fc2.weight}, {"fc2.bias", &model.fc2.bias}};
  for (const auto& [name, p] : weights) kd::save_npy(p->detach().to(kd::kFloat32), out + "/" + name + ".npy");
  std::printf("trained weights written to %s\n", out.c_str());
  const auto steps = static_cast<std::int64_t>(trajectory.size() / 2);
  kd::save_npy(kd::tensor(trajectory, {steps, 2}), out + "/scales.npy");

  // The probe: the checker's batch, float32, the hidden layer checkpointed with dropout in it (so the
  // recomputation must draw the same mask), the loss scaled by the checker's scale.
  const kd::Tensor px = kd::load_npy(in + "/probe_x.npy", kd::kFloat32);  // [n, 784]
  const kd::Tensor py = kd::load_npy(in + "/probe_y.npy", kd::kInt64);    // [n]
  kd::Tensor hidden;  // the forward's hidden layer (the first run of the segment)
  auto segment = [&](const kd::Tensor& t) {
    kd::Tensor h = kd::nn::functional::dropout(model.relu(model.fc1(t)), 0.5, true);
    if (!hidden.defined()) hidden = h.detach().clone();
    return h;
  };
  kd::optim::SGD probe_opt(model.parameters(), {.lr = 0.1});
  {
    kd::amp::GradScaler probe_scaler({.init_scale = probe_scale});
    probe_opt.zero_grad();
    kd::Tensor loss = criterion(model.fc2(kd::utils::checkpoint(segment, px)), py);
    probe_scaler.scale(loss).backward();
    probe_scaler.unscale_(probe_opt);  // your ex1; the step is never taken
    kd::save_npy(hidden, out + "/probe_hidden.npy");
    for (const auto& [name, p] : weights) kd::save_npy(p->grad().to(kd::kFloat32), out + "/probe_grad." + name + ".npy");
  }
  // The same batch with one gradient element +inf: a step that must not happen.
  {
    kd::amp::GradScaler probe_scaler({.init_scale = probe_scale});
    probe_opt.zero_grad();
    kd::Tensor loss = criterion(model(px), py);
    probe_scaler.scale(loss).backward();
    {
      kd::NoGradGuard no_grad;
      kd::Tensor g = weights[inf_param].second->grad();
      g.view({-1}).narrow(0, inf_index, 1).fill_(std::numeric_limits<double>::infinity());
    }
    const bool stepped = probe_scaler.step(probe_opt);
    probe_scaler.update();
    kd::save_npy(kd::tensor(std::vector<double>{stepped ? 1.0 : 0.0, probe_scaler.get_scale()}, {2}),
                 out + "/inf_step.npy");
    for (const auto& [name, p] : weights) kd::save_npy(p->detach().to(kd::kFloat32), out + "/inf_after." + name + ".npy");
  }
  std::printf("%lld steps' scales and the probe's gradients written\n", static_cast<long long>(steps));
  return 0;
}
