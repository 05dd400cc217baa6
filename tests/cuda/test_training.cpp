// A training loop on the device: SimpleNet (Linear 784-128, ReLU, Linear 128-10) with
// CrossEntropyLoss and Adam, a few steps on the emulated cuda:0 against the same steps on the
// CPU from the same initial weights and batches. Every op on the device tensors is one of the
// chapter's kernels (tensor/device_ops.hpp); an op without one still refuses them.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kindling/cuda.hpp"
#include "helpers.hpp"
#include "kindling/optim/adam.hpp"
#include "kindling/train.hpp"

namespace kd = kindling;
namespace kc = kindling::cuda;
using kc::testing::need_emulated_device;
using kc::testing::require_close;
using kc::testing::SimpleNet;

TEST_CASE("training: SimpleNet steps on the emulated device match the CPU's losses and parameters") {
  need_emulated_device();
  const kd::Device cuda = kd::Device::parse("cuda");
  kd::manual_seed(7);
  SimpleNet cpu_net, dev_net;
  dev_net.load_state_dict(cpu_net.state_dict());
  dev_net.to(cuda);
  kd::optim::Adam cpu_opt(cpu_net.parameters(), {.lr = 1e-2});
  kd::optim::Adam dev_opt(dev_net.parameters(), {.lr = 1e-2});
  kd::nn::CrossEntropyLoss loss_fn;
  const int batch = 8, steps = 3;
  for (int step = 0; step < steps; ++step) {
    const kd::Tensor x = kd::randn({batch, 784});
    const kd::Tensor y = kd::randint(0, 10, {batch});
    cpu_opt.zero_grad();
    const kd::Tensor cpu_loss = loss_fn(cpu_net.forward(x), y);
    cpu_loss.backward();
    cpu_opt.step();
    dev_opt.zero_grad();
    const kd::Tensor dev_loss = loss_fn(dev_net.forward(x.to(cuda)), y.to(cuda));
    REQUIRE(dev_loss.device() == cuda);
    dev_loss.backward();
    dev_opt.step();
    INFO("step " << step);
    require_close(dev_loss, cpu_loss.detach(), 1e-5, 1e-6);
  }
  const auto cpu_params = cpu_net.parameters(), dev_params = dev_net.parameters();
  REQUIRE(cpu_params.size() == dev_params.size());
  for (std::size_t i = 0; i < cpu_params.size(); ++i) {
    INFO("parameter " << i);
    REQUIRE(dev_params[i].device() == cuda);
    // Adam divides by sqrt(v) + eps: a float32 rounding difference in a tiny gradient moves a weight
    // by up to lr, so the tolerance is a fraction of lr rather than relative.
    require_close(dev_params[i].detach(), cpu_params[i].detach(), 1e-4, 1e-4);
  }
}

TEST_CASE("training: an op with no device kernel still gives a DeviceError on the device") {
  need_emulated_device();
  const kd::Device cuda = kd::Device::parse("cuda");
  const kd::Tensor logits = kd::randn({4, 10}).to(cuda);
  const kd::Tensor target = kd::randint(0, 10, {4}).to(cuda);
  // Sum reduction has no device kernel: the CPU path's clear error, naming the device.
  REQUIRE_THROWS_AS(kd::nn::functional::cross_entropy(logits, target, {.reduction = kd::nn::Reduction::Sum}),
                    kd::DeviceError);
  REQUIRE_THROWS_WITH(kd::nn::functional::cross_entropy(logits, target.cpu()), Catch::Matchers::Contains("same device"));
  REQUIRE_THROWS_WITH(kd::tanh(logits), Catch::Matchers::Contains("tanh") && Catch::Matchers::Contains("cuda:0"));
  kd::Tensor p = kd::randn({5}).to(cuda);
  p.requires_grad_();
  p.set_grad(kd::randn({5}).to(cuda));
  kd::optim::AdamW adamw({p});
  REQUIRE_THROWS_AS(adamw.step(), kd::DeviceError);  // only Adam's fused step has a kernel
  // The other optimizers update through host pointers: on a device they refuse instead of
  // reading device memory on the host (a crash on a real GPU).
  kd::optim::SGD sgd({p}, {.lr = 0.1});
  REQUIRE_THROWS_AS(sgd.step(), kd::DeviceError);
  kd::optim::RMSprop rmsprop({p});
  REQUIRE_THROWS_AS(rmsprop.step(), kd::DeviceError);
  kd::optim::Adagrad adagrad({p});
  REQUIRE_THROWS_AS(adagrad.step(), kd::DeviceError);
}
