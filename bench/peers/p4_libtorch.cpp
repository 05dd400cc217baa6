// P4 peer: autograd overhead in LibTorch 1.13 C++ (1 thread): a chain of `ops` tiny ops on 16 floats,
// alternating y = y * w and y = tanh(y), then y.sum().backward(). The same work as
// bench/autograd_chain.cpp and bench/peers/p4_pytorch.py, without Python's interpreter in the way: what
// is left is LibTorch's dispatcher, its autograd graph and its engine.
//   usage: bench_peer_p4_chain OPS        then the interleaving protocol of bench/peer_process.hpp:
//   stdin:  32 floats (x and w), then "run" / "quit" lines
//   stdout: "ready grad_w_sum=<value> gemm=<GEMM libraries:ISA> ftz=<on|off>" after the warm-up, then "cpu=<s> wall=<s>"
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "backend_info.hpp"

namespace {
double clock_s(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  peers::flush_denormal_if_asked();  // the tuned setting (backend_info.hpp)
  const int ops = argc > 1 ? std::atoi(argv[1]) : 10000;
  torch::set_num_threads(1);
  std::vector<float> vals(32);
  for (float& v : vals)
    if (!(std::cin >> v)) {
      std::fprintf(stderr, "p4_libtorch: expected 32 floats on stdin\n");
      return 1;
    }
  std::string rest;
  std::getline(std::cin, rest);  // the end of the values' line
  auto x = torch::from_blob(vals.data(), {16}, torch::kFloat32).clone().requires_grad_();
  auto w = torch::from_blob(vals.data() + 16, {16}, torch::kFloat32).clone().requires_grad_();
  auto run = [&] {
    torch::Tensor y = x;
    for (int i = 0; i < ops; ++i) y = (i % 2 == 0) ? y * w : y.tanh();
    y.sum().backward();
  };
  run();  // warm-up (and the gradient we report)
  std::printf("ready grad_w_sum=%.9g gemm=%s ftz=%s\n", w.grad().sum().item<double>(), peers::gemm_backends().c_str(), peers::flush_denormal_state());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line) && line == "run") {
    w.mutable_grad() = torch::Tensor();
    x.mutable_grad() = torch::Tensor();
    const double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    run();
    std::printf("cpu=%.9g wall=%.9g\n", clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, clock_s(CLOCK_MONOTONIC) - w0);
    std::fflush(stdout);
  }
}
