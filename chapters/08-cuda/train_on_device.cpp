// Chapter 8 — a training loop on the device: SimpleNet (Linear 784-128, ReLU,
// Linear 128-10), CrossEntropyLoss and Adam, trained on cuda:0 next to the same
// network on the CPU, from the same initial weights and the same batch. Every op on the
// device tensors is one of the chapter's kernels (matmul v3, the broadcasting add,
// relu, the column sum, cross-entropy, the fused Adam step); without a GPU they run on
// the kernel emulator.
// `--time N` (scripts/gpu-check.sh, on a GPU) times N steps on each device instead.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <kindling/cuda.hpp>
#include <kindling/kindling.hpp>
#include <kindling/train.hpp>

namespace kd = kindling;
namespace kc = kindling::cuda;

// [snippet: simplenet]
struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }
};

// One step: the loop of chapter 5, unchanged; x and y are already on the model's
// device.
kd::Tensor train_step(SimpleNet& net, kd::optim::Adam& opt, const kd::Tensor& x,
                      const kd::Tensor& y) {
  kd::nn::CrossEntropyLoss loss_fn;
  opt.zero_grad();
  kd::Tensor loss = loss_fn(net.forward(x), y);
  loss.backward();
  opt.step();
  return loss;
}
// [end]

// Steps per second of `steps` steps on `device` (the last loss read back, so the GPU's
// queue is done).
double steps_per_second(kd::Device device, int steps, int batch) {
  SimpleNet net;
  net.to(device);
  kd::optim::Adam opt(net.parameters(), {.lr = 1e-3});
  const kd::Tensor x = kd::randn({batch, 784}).to(device),
                   y = kd::randint(0, 10, {batch}).to(device);
  train_step(net, opt, x, y);  // warm-up: the allocator's cache, the state of Adam
  const auto t0 = std::chrono::steady_clock::now();
  kd::Tensor loss;
  for (int i = 0; i < steps; ++i) loss = train_step(net, opt, x, y);
  (void)loss.cpu().item<float>();
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return steps / s;
}

int main(int argc, char** argv) {
  if (!kc::is_available()) {
    std::printf("no GPU: the emulated cuda:0 (it checks correctness, not speed)\n");
    kc::use_emulated_device();
  }
  const kd::Device cuda = kd::Device::parse("cuda");
  if (argc == 3 && std::strcmp(argv[1], "--time") == 0) {
    const int steps = std::atoi(argv[2]);
    std::printf(
        "SimpleNet, batch 32, %d steps: cuda:0 %.1f steps/s, CPU %.1f steps/s\n", steps,
        steps_per_second(cuda, steps, 32), steps_per_second(kd::kCPU, steps, 32));
    return 0;
  }
  // [snippet: device-loop]
  kd::manual_seed(0);
  SimpleNet cpu_net, dev_net;
  dev_net.load_state_dict(cpu_net.state_dict());  // the same initial weights
  dev_net.to(cuda);  // parameters (and their gradients) live on cuda:0
  kd::optim::Adam cpu_opt(cpu_net.parameters(), {.lr = 1e-3});
  kd::optim::Adam dev_opt(dev_net.parameters(),
                          {.lr = 1e-3});  // its state appears on cuda:0
  const kd::Tensor x = kd::randn({8, 784}),
                   y = kd::randint(0, 10, {8});       // one small batch, learned
  const kd::Tensor dx = x.to(cuda), dy = y.to(cuda);  // moved once
  for (int step = 1; step <= 5; ++step) {
    const float cpu_loss = train_step(cpu_net, cpu_opt, x, y).item<float>();
    const float dev_loss = train_step(dev_net, dev_opt, dx, dy).cpu().item<float>();
    std::printf("step %d  loss on the CPU %.4f  on %s %.4f\n", step, cpu_loss,
                cuda.str().c_str(), dev_loss);
  }
  // [end]
  return 0;
}
