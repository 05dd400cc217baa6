// The zoo side by side: for each model, its parameters, the multiply-adds of one
// forward pass on a 224x224 image (counted by forward hooks on every convolution and
// linear layer), and the forward time measured here on one 224x224 image. And why
// ResNet-50's block is a bottleneck: the parameters of two blocks at 256 channels.
// book: timeout 300
#include <algorithm>
#include <chrono>

#include "common.hpp"

namespace {

// [snippet: count-macs]
// Multiply-adds of one forward pass: each output element of a convolution costs
// (in_channels / groups) * kH * kW of them, each output of a Linear in_features.
std::int64_t count_macs(kd::nn::Module& model, const kd::Tensor& x) {
  std::int64_t macs = 0;
  std::vector<kd::autograd::RemovableHandle> hooks;
  for (kd::nn::Module* m : model.modules()) {
    if (auto* conv = dynamic_cast<kd::nn::Conv2d*>(m)) {
      const kd::Tensor& w = conv->weight;  // [out, in / groups, kH, kW]
      hooks.push_back(m->register_forward_hook(
          [&macs, &w](kd::nn::Module&, const kd::Tensor&, const kd::Tensor& out) {
            macs += out.numel() * w.size(1) * w.size(2) * w.size(3);
            return kd::Tensor();  // keep the output as it is
          }));
    } else if (auto* linear = dynamic_cast<kd::nn::Linear*>(m)) {
      const std::int64_t in = linear->in_features;
      hooks.push_back(m->register_forward_hook(
          [&macs, in](kd::nn::Module&, const kd::Tensor&, const kd::Tensor& out) {
            macs += out.numel() * in;
            return kd::Tensor();
          }));
    }
  }
  model(x);
  for (auto& h : hooks) h.remove();
  return macs;
}
// [end]

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main() {
  kd::manual_seed(0);
  kd::NoGradGuard no_grad;
  const kd::Tensor x = kd::randn({1, 3, 224, 224});
  // [snippet: zoo-table]
  std::printf("%-16s %12s %8s %14s %10s\n", "model", "parameters", "GMACs",
              "forward (ms)", "GMACs/s");
  for (const std::string& name : models::list_models()) {
    std::shared_ptr<kd::nn::Module> model = models::get_model(name, 1000);
    model->eval();
    const std::int64_t macs = count_macs(*model, x);
    std::vector<double> ms;  // the median of three timed runs, after one untimed
    for (int run = 0; run < 4; ++run) {
      const auto t0 = std::chrono::steady_clock::now();
      (*model)(x);
      if (run > 0) ms.push_back(1000 * seconds_since(t0));
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-16s %12lld %8.2f %14.0f %10.1f\n", name.c_str(),
                static_cast<long long>(model->num_parameters()), macs / 1e9, ms[1],
                macs / 1e6 / ms[1]);
  }
  // [end]

  // [snippet: bottleneck]
  // ResNet-34's block at 256 channels: two 3x3 convolutions 256 -> 256. A Bottleneck
  // with planes = 64 reduces 256 to 64 (1x1), convolves 64 -> 64 (3x3), expands to 256
  // (1x1); ResNet-50's block with planes = 256 does the same around 1024 channels.
  models::BasicBlock basic(256, 256);
  models::Bottleneck narrow(256, 64), wide(1024, 256);
  const kd::Tensor h256 = kd::randn({1, 256, 14, 14}),
                   h1024 = kd::randn({1, 1024, 14, 14});
  std::printf("\n%-22s %9s %8s   %s\n", "block at 14x14", "params", "GMACs",
              "in -> out");
  auto row = [](const char* name, kd::nn::Module& block, const kd::Tensor& h) {
    std::printf("%-22s %9lld %8.3f   %s -> %s\n", name,
                static_cast<long long>(block.num_parameters()),
                count_macs(block, h) / 1e9, kd::shape_str(h.shape()).c_str(),
                kd::shape_str(block(h).shape()).c_str());
  };
  row("BasicBlock(256, 256)", basic, h256);
  row("Bottleneck(256, 64)", narrow, h256);
  row("Bottleneck(1024, 256)", wide, h1024);
  // [end]
}
