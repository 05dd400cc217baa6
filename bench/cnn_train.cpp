// P6: the small CNN's full training step (bench/peers/p6_cnn_setup.hpp: conv-relu-pool x2, fc-relu-fc,
// batch 64, CrossEntropyLoss, Adam) in training steps per second, Kindling vs LibTorch 1.13 (peer
// bench/peers/p6_cnn_libtorch.cpp), 1 thread each, in the same run. Both start from the same weights and
// train on the same batches in the same order, so their losses must agree: after the warm-up closely,
// and still loosely at the end (float32 in different summation orders drifts a little under Adam).
//
// Timing: interleaved repetitions of `steps` steps each (peer_process.hpp), CPU time, the median of the
// paired ratios. --quick: a few steps (the CTest smoke test); the peer is used only if it is built.
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <kindling/train.hpp>
#include <string>

#include "bench_util.hpp"
#include "peers/p6_cnn_setup.hpp"

namespace kd = kindling;

#ifndef KINDLING_P6_PEER
#define KINDLING_P6_PEER ""
#endif

namespace {

struct CNN : kd::nn::Module {
  kd::nn::Conv2d conv1{1, 32, 3, {.padding = 1}};   // [64, 1, 28, 28] -> [64, 32, 28, 28]
  kd::nn::Conv2d conv2{32, 64, 3, {.padding = 1}};  // [64, 32, 14, 14] -> [64, 64, 14, 14]
  kd::nn::MaxPool2d pool{2};
  kd::nn::ReLU relu;
  kd::nn::Linear fc1{3136, 128};
  kd::nn::Linear fc2{128, 10};
  CNN() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("pool", pool);
    register_module("relu", relu);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    kd::NoGradGuard no_grad;
    const auto specs = p6::params();
    auto named = named_parameters();
    for (std::size_t k = 0; k < specs.size(); ++k) {
      if (named.at(k).first != specs[k].name) throw std::logic_error("cnn_train: parameter order");
      named[k].second.copy_(kd::tensor(p6::initial(specs[k], static_cast<int>(k)), specs[k].shape));
    }
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = pool(relu(conv1(x)));         // [64, 32, 14, 14]
    h = pool(relu(conv2(h)));                    // [64, 64, 7, 7]
    return fc2(relu(fc1(h.flatten(1))));         // [64, 10]
  }
};

bool exists(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::single_thread();
  const int steps = opt.quick ? 1 : 5, warmup = 3, reps = opt.quick ? 3 : 15;

  kd::data::FashionMNIST train(kd::data::Split::Train);
  kd::Tensor X = train.data().to(kd::kFloat32).view({-1, 1, 28, 28});
  X.div_(255.0);
  const kd::Tensor Y = train.targets();
  const std::int64_t batches = X.size(0) / p6::kBatch;
  CNN model;
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  std::int64_t cursor = 0;
  double last = 0;
  auto run = [&](int count) {
    for (int s = 0; s < count; ++s, ++cursor) {
      const std::int64_t b = cursor % batches;
      const kd::Tensor inputs = X.slice(0, b * p6::kBatch, (b + 1) * p6::kBatch);
      const kd::Tensor targets = Y.slice(0, b * p6::kBatch, (b + 1) * p6::kBatch);
      optimizer.zero_grad();
      kd::Tensor loss = criterion(model(inputs), targets);
      loss.backward();
      optimizer.step();
      last = loss.item<double>();
    }
  };
  run(warmup);
  const double warm_loss = last;

  const std::string peer_path = KINDLING_P6_PEER;
  bench::PeerProcess peer;
  if (!exists(peer_path) ||
      !peer.start({peer_path, std::to_string(steps), std::to_string(warmup)})) {
    std::fprintf(stderr, "cnn_train: LibTorch peer not built (%s); `make bench` builds it (target bench_peers)\n",
                 peer_path.empty() ? "LibTorch was not found at configure time" : peer_path.c_str());
    std::printf("BENCH P6 CNN train steps/s (1 thread): skipped (no LibTorch peer)\n");
    return opt.quick ? 0 : 1;  // `make bench` builds the peer, so a missing one there is a failure
  }
  double peer_warm = std::nan("");
  std::sscanf(peer.ready_line().c_str(), "ready loss=%lf", &peer_warm);
  if (!p6::close(warm_loss, peer_warm, 1e-3)) {
    std::fprintf(stderr, "cnn_train: after %d steps Kindling's loss is %.9g, LibTorch's %.9g\n", warmup, warm_loss,
                 peer_warm);
    return 1;
  }
  double peer_last = 0;
  const auto paired = bench::interleave_with(
      [&] { run(steps); },
      [&] {
        auto rep = peer.run();
        if (rep) peer_last = std::stod(rep->extra["loss"]);
        return rep;
      },
      reps);
  if (!paired) return 1;
  const int total = warmup + steps * (reps + 1);
  if (!p6::close(last, peer_last, 0.05)) {
    std::fprintf(stderr, "cnn_train: after %d steps Kindling's loss is %.6g, LibTorch's %.6g\n", total, last,
                 peer_last);
    return 1;
  }
  bench::report_rate("P6", "CNN train steps/s (1 thread)", *paired, steps, "steps/s", "kindling", "libtorch");
  std::printf("  (%d interleaved repetitions of %d steps, CPU time; losses after %d steps: kindling %.4f, "
              "libtorch %.4f)\n",
              reps, steps, total, last, peer_last);
  return 0;
}
