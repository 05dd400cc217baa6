// Chapter 6's automatic-mixed-precision loop on the device. Autocast for cuda tensors
// runs SimpleNet's matrix products in float16 (torch.autocast("cuda")'s default) on
// the chapter's 16-bit kernels and the loss in float32; GradScaler unscales the
// gradients and looks for inf/NaN with a kernel of its own. Next to it the same loop
// runs on the CPU (float16 autocast there too), from the same weights and batches.
// The scaler starts at 2^24 here (PyTorch's default is 2^16), so that the first scaled
// gradients overflow float16: those steps are skipped, and the scale halves until
// they fit. Without a GPU the device is the kernel emulator (correctness, not speed).
// `--steps N` (scripts/gpu-check.sh, on a GPU) trains N steps, then reports test
// accuracy.
// book: timeout 300
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <kindling/amp.hpp>
#include <kindling/cuda.hpp>
#include <kindling/kindling.hpp>
#include <kindling/train.hpp>

namespace kd = kindling;
namespace amp = kd::amp;

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

using Batch = std::pair<kd::Tensor, kd::Tensor>;

// The first `n` batches of `size` of a split: [size, 784] floats in [0, 1], labels.
std::vector<Batch> batches(kd::data::Split split, std::size_t n, std::int64_t size) {
  auto set = kd::data::FashionMNIST(split, kd::data::transforms::ToTensor());
  kd::data::DataLoader loader(set, {.batch_size = size});
  std::vector<Batch> out;
  for (auto& [images, labels] : loader) {
    if (out.size() == n) break;
    out.push_back({images.view({images.size(0), 784}), labels});
  }
  return out;
}

// One step of chapter 6's loop, on whichever device the model and the batch are.
// [snippet: amp-step]
struct Step {
  float loss;
  bool taken;
};
Step amp_step(SimpleNet& model, kd::optim::Adam& optimizer, amp::GradScaler& scaler,
              const kd::Tensor& inputs, const kd::Tensor& labels) {
  kd::nn::CrossEntropyLoss criterion;
  optimizer.zero_grad();
  kd::Tensor loss;
  {
    // The region of the inputs' device type: CUDA's runs float16 (its default).
    amp::AutocastGuard autocast({.device_type = inputs.device().type,
                                 .dtype = kd::kHalf});
    loss = criterion(model(inputs), labels);  // float16 products, a float32 loss
  }
  scaler.scale(loss).backward();
  const bool taken = scaler.step(optimizer);  // unscale_ (a kernel on the device)
  scaler.update();
  return {loss.cpu().item<float>(), taken};
}
// [end]

int main(int argc, char** argv) {
  int steps = 10;
  if (argc == 3 && std::strcmp(argv[1], "--steps") == 0) steps = std::atoi(argv[2]);
  if (kd::cuda::is_available()) {
    std::printf("GPU: %s\n", kd::cuda::get_device_name(0).c_str());
  } else {
    kd::cuda::use_emulated_device();
    std::printf("no GPU: the emulated cuda:0\n");
  }
  const kd::Device cuda = kd::Device::parse("cuda");
  const std::vector<Batch> train = batches(kd::data::Split::Train, steps, 16);

  kd::manual_seed(0);
  SimpleNet cpu_net, dev_net;
  dev_net.load_state_dict(cpu_net.state_dict());  // the same initial weights
  dev_net.to(cuda);
  kd::optim::Adam cpu_opt(cpu_net.parameters(), {.lr = 1e-3});
  kd::optim::Adam dev_opt(dev_net.parameters(), {.lr = 1e-3});
  const amp::GradScalerOptions from_2_24{.init_scale = 16777216.0};
  amp::GradScaler cpu_scaler(from_2_24), dev_scaler(from_2_24);

  std::printf("step  scale     loss: CPU   %s   step\n", cuda.str().c_str());
  int shown = 0, skipped = 0, disagree = 0;
  double loss_gap = 0;
  for (int i = 0; i < steps; ++i) {
    const auto& [x, y] = train[static_cast<std::size_t>(i)];
    const double scale = dev_scaler.get_scale();
    const Step c = amp_step(cpu_net, cpu_opt, cpu_scaler, x, y);
    const Step d = amp_step(dev_net, dev_opt, dev_scaler, x.to(cuda), y.to(cuda));
    skipped += !d.taken;
    disagree += c.taken != d.taken;
    loss_gap = std::max(loss_gap, std::abs(double(c.loss) - double(d.loss)));
    // Every step of a short run, the first and last ten of a long one.
    if (i < 10 || i >= steps - 10) {
      std::printf("%4d  %8.0f  %10.4f  %8.4f   %s%s\n", i + 1, scale, c.loss, d.loss,
                  d.taken ? "taken" : "skipped: inf/NaN in the gradients",
                  c.taken == d.taken ? "" : " (the CPU's differs)");
      ++shown;
    } else if (shown == 10) {
      std::printf("   ...\n");
      ++shown;
    }
  }
  std::printf("%s skipped %d of %d steps, the CPU %s; largest loss gap %.1e\n",
              cuda.str().c_str(), skipped, steps,
              disagree == 0 ? "the same ones" : "others", loss_gap);

  // What autocast made of a batch on the device, and where everything lives.
  kd::Tensor logits;
  {
    amp::AutocastGuard autocast({.device_type = kd::DeviceType::CUDA});
    logits = dev_net(train[0].first.to(cuda));
  }
  const kd::Tensor& w = dev_net.fc1.weight;
  std::printf("\nunder autocast on %s: logits %s\n", cuda.str().c_str(),
              kd::dtype_name(logits.dtype()));
  std::printf("fc1.weight: %s, its gradient %s on %s\n", kd::dtype_name(w.dtype()),
              kd::dtype_name(w.grad().dtype()), w.grad().device().str().c_str());
  double worst = 0;
  const auto cp = cpu_net.parameters(), dp = dev_net.parameters();
  for (std::size_t i = 0; i < cp.size(); ++i)
    worst = std::max(
        worst, (cp[i].detach() - dp[i].detach().cpu()).abs().max().item<double>());
  std::printf("largest |CPU - %s| gap of a weight after %d steps: %.1e\n",
              cuda.str().c_str(), steps, worst);

  if (steps > 10) {  // a real run: test accuracy of the device's model, under autocast
    const std::vector<Batch> test = batches(kd::data::Split::Test, 40, 64);
    kd::NoGradGuard no_grad;
    amp::AutocastGuard autocast({.device_type = kd::DeviceType::CUDA});
    std::int64_t correct = 0, seen = 0;
    for (const auto& [x, y] : test) {
      const kd::Tensor pred = dev_net(x.to(cuda)).cpu().argmax(1);
      correct += (pred == y).sum().item<std::int64_t>();
      seen += y.size(0);
    }
    std::printf("test accuracy on %s after %d steps: %.2f %%\n", cuda.str().c_str(),
                steps, 100.0 * correct / seen);
  }
  return 0;
}
