// P6 groundwork: Conv2d forward+backward on a Fashion-MNIST-sized batch [32, 1, 28, 28] —
// Conv2d(1, 32, 3, padding 1) → ReLU → Conv2d(32, 64, 3, padding 1), loss = y.sum() — in Kindling vs
// LibTorch 1.13, both on 1 thread, in the same run. The LibTorch peer is a separate program
// (bench/peers/p6_conv2d_libtorch.cpp, built by `make bench`); both print checksums of y and of the
// gradients, and the benchmark fails if they disagree. Prints
//   BENCH P6 conv2d fwd+bwd [32,1,28,28]: ratio=<libtorch time / kindling time> (<k ms> vs <libtorch ms>)
// --quick: a few iterations (the CTest smoke test); the peer is used only if it has been built.
#include <kindling/nn.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <sys/stat.h>

#include "bench_util.hpp"
#include "peers/p6_conv2d_setup.hpp"

namespace kd = kindling;

#ifndef KINDLING_P6_PEER
#define KINDLING_P6_PEER ""
#endif

namespace {
kd::Tensor from(const std::vector<float>& v, const kd::Shape& shape) { return kd::tensor(v, shape); }

struct ConvNet : kd::nn::Module {
  kd::nn::Conv2d conv1{1, p6::kC1, p6::kK, {.padding = 1}};
  kd::nn::Conv2d conv2{p6::kC1, p6::kC2, p6::kK, {.padding = 1}};
  ConvNet() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    kd::NoGradGuard no_grad;
    conv1.weight.copy_(from(p6::weight1(), {p6::kC1, 1, p6::kK, p6::kK}));
    conv1.bias.copy_(from(p6::bias1(), {p6::kC1}));
    conv2.weight.copy_(from(p6::weight2(), {p6::kC2, p6::kC1, p6::kK, p6::kK}));
    conv2.bias.copy_(from(p6::bias2(), {p6::kC2}));
  }
  kd::Tensor forward(const kd::Tensor& x) override { return conv2(kd::relu(conv1(x))); }  // [32, 64, 28, 28]
};

/// Runs the peer and parses its line; false (with a message) when it is missing or fails.
bool run_peer(int rounds, int iters, double& seconds, p6::Checksums& c) {
  const std::string peer = KINDLING_P6_PEER;
  struct stat st {};
  if (peer.empty() || stat(peer.c_str(), &st) != 0) {
    std::fprintf(stderr, "conv2d: LibTorch peer not built (%s); `make bench` builds it (target bench_peers)\n",
                 peer.empty() ? "LibTorch was not found at configure time" : peer.c_str());
    return false;
  }
  const std::string cmd = peer + " " + std::to_string(rounds) + " " + std::to_string(iters);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return false;
  const int n = std::fscanf(pipe, "seconds=%lf y_sum=%lf gw1_abs=%lf gw2_abs=%lf gb1_sum=%lf", &seconds, &c.y_sum,
                            &c.gw1_abs, &c.gw2_abs, &c.gb1_sum);
  const int status = pclose(pipe);
  if (n != 5 || status != 0) {
    std::fprintf(stderr, "conv2d: the LibTorch peer failed (exit status %d, %d fields read)\n", status, n);
    return false;
  }
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::single_thread();
  const int rounds = opt.quick ? 1 : 5, iters = opt.quick ? 1 : 5;

  ConvNet net;
  const kd::Tensor x = from(p6::input(), {p6::kBatch, 1, p6::kH, p6::kW});
  kd::Tensor y;
  auto step = [&] {
    net.zero_grad(/*set_to_none=*/true);
    y = net(x);
    y.sum().backward();
  };
  step();
  p6::Checksums mine;
  mine.y_sum = y.sum().item<double>();
  mine.gw1_abs = net.conv1.weight.grad().abs().sum().item<double>();
  mine.gw2_abs = net.conv2.weight.grad().abs().sum().item<double>();
  mine.gb1_sum = net.conv1.bias.grad().sum().item<double>();

  // Kindling, then the peer, then Kindling again: the best of both Kindling halves faces the peer.
  double kindling_s = bench::best_seconds(step, rounds, iters);
  double peer_s = 0;
  p6::Checksums theirs;
  const bool have_peer = run_peer(rounds, iters, peer_s, theirs);
  kindling_s = std::min(kindling_s, bench::best_seconds(step, rounds, iters));

  if (!have_peer) {
    std::printf("BENCH P6 conv2d fwd+bwd [32,1,28,28]: skipped (no LibTorch peer; kindling %s)\n",
                bench::fmt_time(kindling_s).c_str());
    return opt.quick ? 0 : 1;  // `make bench` builds the peer, so a missing one there is a failure
  }
  const bool agree = p6::close(mine.y_sum, theirs.y_sum) && p6::close(mine.gw1_abs, theirs.gw1_abs) &&
                     p6::close(mine.gw2_abs, theirs.gw2_abs) && p6::close(mine.gb1_sum, theirs.gb1_sum);
  if (!agree) {
    std::fprintf(stderr,
                 "conv2d: Kindling and LibTorch disagree: y_sum %.9g vs %.9g, |gw1| %.9g vs %.9g, |gw2| %.9g vs %.9g, "
                 "gb1 %.9g vs %.9g\n",
                 mine.y_sum, theirs.y_sum, mine.gw1_abs, theirs.gw1_abs, mine.gw2_abs, theirs.gw2_abs, mine.gb1_sum,
                 theirs.gb1_sum);
    return 1;
  }
  bench::report("P6", "conv2d fwd+bwd [32,1,28,28]", kindling_s, "kindling", peer_s, "libtorch");
}
