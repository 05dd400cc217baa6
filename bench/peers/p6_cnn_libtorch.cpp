// P6 peer: the CNN training step of p6_cnn_setup.hpp in LibTorch 1.13 (1 thread), in the interleaving
// protocol of bench/peer_process.hpp:
//   usage: bench_peer_p6_cnn <steps per repetition> <warm-up steps> [fashion-mnist dir]
//   stdout: "ready loss=<loss of the last warm-up step> gemm=<GEMM libraries:ISA> ftz=<on|off>", then per "run": "cpu=<s> wall=<s> loss=<last loss>"
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>

#include "backend_info.hpp"
#include "idx_reader.hpp"
#include "p6_cnn_setup.hpp"

namespace {
double clock_s(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct CNN : torch::nn::Module {
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  CNN() {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3).padding(1)));
    conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).padding(1)));
    fc1 = register_module("fc1", torch::nn::Linear(3136, 128));
    fc2 = register_module("fc2", torch::nn::Linear(128, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(conv1(x)), 2);
    x = torch::max_pool2d(torch::relu(conv2(x)), 2);
    return fc2(torch::relu(fc1(x.flatten(1))));
  }
};
}  // namespace

int main(int argc, char** argv) {
  peers::flush_denormal_if_asked();  // the tuned setting (backend_info.hpp)
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  const int warmup = argc > 2 ? std::atoi(argv[2]) : 3;
  const char* dir = argc > 3 ? argv[3] : "/usr/share/datasets/fashion-mnist";
  torch::set_num_threads(1);
  std::vector<float> images;
  std::vector<std::int64_t> labels;
  std::int64_t n = 0;
  peers::load_fashion_mnist(dir, images, labels, n);
  auto X = torch::from_blob(images.data(), {n, 1, 28, 28}, torch::kFloat32);
  auto Y = torch::from_blob(labels.data(), {n}, torch::kInt64);
  CNN model;
  {
    torch::NoGradGuard no_grad;
    const auto specs = p6::params();
    auto named = model.named_parameters();
    for (std::size_t k = 0; k < specs.size(); ++k) {
      std::vector<float> v = p6::initial(specs[k], static_cast<int>(k));
      named[specs[k].name].copy_(torch::from_blob(v.data(), specs[k].shape, torch::kFloat32));
    }
  }
  torch::optim::Adam optimizer(model.parameters(), torch::optim::AdamOptions(1e-3));
  const std::int64_t batches = n / p6::kBatch;
  std::int64_t cursor = 0;
  auto run = [&](int count) {
    double last = 0;
    for (int s = 0; s < count; ++s, ++cursor) {
      const std::int64_t b = cursor % batches;
      auto inputs = X.narrow(0, b * p6::kBatch, p6::kBatch);
      auto targets = Y.narrow(0, b * p6::kBatch, p6::kBatch);
      optimizer.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(model.forward(inputs), targets);
      loss.backward();
      optimizer.step();
      last = loss.item<double>();
    }
    return last;
  };
  const double warm_loss = run(warmup);
  std::printf("ready loss=%.9g gemm=%s ftz=%s\n", warm_loss, peers::gemm_backends().c_str(), peers::flush_denormal_state());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line) && line == "run") {
    const double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    const double loss = run(steps);
    std::printf("cpu=%.9g wall=%.9g loss=%.9g\n", clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0,
                clock_s(CLOCK_MONOTONIC) - w0, loss);
    std::fflush(stdout);
  }
}
