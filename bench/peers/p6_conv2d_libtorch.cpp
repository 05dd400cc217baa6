// P6 peer: Conv2d forward+backward in LibTorch 1.13 (1 thread) on the set-up of p6_conv2d_setup.hpp.
// Usage: bench_peer_p6_conv2d [rounds] [iters]. Prints one line:
//   seconds=<best mean seconds per fwd+bwd> y_sum=<..> gw1_abs=<..> gw2_abs=<..> gb1_sum=<..>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "p6_conv2d_setup.hpp"

namespace {
torch::Tensor from(std::vector<float> v, torch::IntArrayRef shape) {
  return torch::from_blob(v.data(), shape, torch::kFloat32).clone();  // own the memory
}
}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 5;
  torch::set_num_threads(1);
  using namespace p6;
  torch::nn::Conv2d conv1(torch::nn::Conv2dOptions(1, kC1, kK).padding(1));
  torch::nn::Conv2d conv2(torch::nn::Conv2dOptions(kC1, kC2, kK).padding(1));
  {
    torch::NoGradGuard no_grad;
    conv1->weight.copy_(from(weight1(), {kC1, 1, kK, kK}));
    conv1->bias.copy_(from(bias1(), {kC1}));
    conv2->weight.copy_(from(weight2(), {kC2, kC1, kK, kK}));
    conv2->bias.copy_(from(bias2(), {kC2}));
  }
  const torch::Tensor x = from(input(), {kBatch, 1, kH, kW});
  torch::Tensor y;
  auto step = [&] {
    for (auto* p : {&conv1->weight, &conv1->bias, &conv2->weight, &conv2->bias}) p->mutable_grad().reset();
    y = conv2(torch::relu(conv1(x)));
    y.sum().backward();
  };
  step();  // warm-up (and the checksums)
  Checksums c;
  c.y_sum = y.sum().item<double>();
  c.gw1_abs = conv1->weight.grad().abs().sum().item<double>();
  c.gw2_abs = conv2->weight.grad().abs().sum().item<double>();
  c.gb1_sum = conv1->bias.grad().sum().item<double>();
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) step();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters);
  }
  std::printf("seconds=%.9g y_sum=%.9g gw1_abs=%.9g gw2_abs=%.9g gb1_sum=%.9g\n", best, c.y_sum, c.gw1_abs, c.gw2_abs,
              c.gb1_sum);
}
