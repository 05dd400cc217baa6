// P6: the small CNN's full training step (bench/peers/p6_cnn_setup.hpp: conv-relu-pool x2, fc-relu-fc,
// batch 64, CrossEntropyLoss, Adam) in training steps per second, Kindling vs LibTorch 1.13 (peer
// bench/peers/p6_cnn_libtorch.cpp), 1 thread each, in the same run. Both start from the same weights and
// train on the same batches in the same order, so their losses must agree: after the warm-up closely,
// and still loosely at the end (float32 in different summation orders drifts a little under Adam).
//
// Timing: interleaved repetitions of `steps` steps each (peer_process.hpp), CPU time, the median of the
// paired ratios; against the tuned peer, then against the peer as installed (bench_util.hpp), each line
// with the step's floor (floor.hpp, measured in the same run). --quick: a few steps (the CTest smoke
// test); the peer is used only if it is built.
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <kindling/train.hpp>
#include <string>

#include "bench_util.hpp"
#include "floor.hpp"
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

/// The CNN's step for the floor (floor.hpp): each convolution as its im2col product over the batch.
bench::StepModel cnn_step() {
  const std::int64_t B = p6::kBatch, P1 = B * 28 * 28, P2 = B * 14 * 14;  // output pixels of conv1, conv2
  bench::StepModel m;
  m.gemms = {
      {"conv1 forward W1@cols", 32, P1, 9, false, false},
      {"conv1 weight grad dY1@cols^T", 32, 9, P1, false, true},
      {"conv2 forward W2@cols", 64, P2, 288, false, false},
      {"conv2 weight grad dY2@cols^T", 64, 288, P2, false, true},
      {"conv2 input grad W2^T@dY2", 288, P2, 64, true, false},
      {"fc1 forward x@W3^T", B, 128, 3136, false, true},
      {"fc1 weight grad g^T@x", 128, 3136, B, true, false},
      {"fc1 input grad g@W3", B, 3136, 128, false, false},
      {"fc2 forward h@W4^T", B, 10, 128, false, true},
      {"fc2 weight grad g^T@h", 10, 128, B, true, false},
      {"fc2 input grad g@W4", B, 128, 10, false, false},
  };
  for (const auto& spec : p6::params()) {
    double n = 1;
    for (auto d : spec.shape) n *= static_cast<double>(d);
    m.parameters += n;
  }
  m.input_bytes = static_cast<double>(B) * 784 * 4;
  return m;
}

bool exists(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
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

  const bench::StepModel step_model = cnn_step();
  const bench::Floor floor = bench::measure_floor(step_model, opt.quick);

  const std::string peer_path = KINDLING_P6_PEER;
  if (!exists(peer_path)) {
    std::fprintf(stderr, "cnn_train: LibTorch peer not built (%s); `make bench` builds it (target bench_peers)\n",
                 peer_path.empty() ? "LibTorch was not found at configure time" : peer_path.c_str());
    std::printf("BENCH P6 CNN train steps/s (1 thread): skipped (no LibTorch peer)\n");
    return opt.quick ? 0 : 1;  // `make bench` builds the peer, so a missing one there is a failure
  }
  for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
    bench::PeerProcess peer;
    if (!peer.start({peer_path, std::to_string(steps), std::to_string(warmup)}, "", ps.env)) {
      std::fprintf(stderr, "cnn_train: the LibTorch peer %s did not start\n", peer_path.c_str());
      return 1;
    }
    double peer_warm = std::nan("");
    std::sscanf(peer.ready_line().c_str(), "ready loss=%lf", &peer_warm);
    if (!p6::close(warm_loss, peer_warm, 1e-3)) {
      std::fprintf(stderr, "cnn_train: after %d steps Kindling's loss is %.9g, LibTorch's %.9g\n", warmup, warm_loss,
                   peer_warm);
      return 1;
    }
    // Kindling's model has trained on since the warm-up; the peer starts again from it. Compare the losses
    // after the same number of steps: Kindling's cursor and the peer's are in step only on the first pass.
    const std::int64_t kd_start = cursor;
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
    if (kd_start == warmup && !p6::close(last, peer_last, 0.05)) {
      std::fprintf(stderr, "cnn_train: after %d steps Kindling's loss is %.6g, LibTorch's %.6g\n", total, last,
                   peer_last);
      return 1;
    }
    auto sides = bench::Sides::peer(ps, peer.ready_line(), steps, "step");
    sides.floor_s = floor.total();
    bench::report_rate("P6", bench::titled("CNN train steps/s (1 thread)", ps), *paired, steps, "steps/s", "kindling",
                       bench::peer_name("libtorch", ps), sides);
    if (ps.mode == "tuned") {
      bench::print_floor("P6", floor, step_model.gemms.size());
      std::printf("  (%d interleaved repetitions of %d steps, CPU time; losses after %d steps: kindling %.4f, "
                  "libtorch %.4f)\n",
                  reps, steps, total, last, peer_last);
    }
  }
  return 0;
}
