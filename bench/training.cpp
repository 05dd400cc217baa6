// P1: the seed's SimpleNet (784-128-10, ReLU), Adam lr 1e-3, CrossEntropyLoss, batches of 32 taken in
// order from Fashion-MNIST in memory, 1 thread: training steps per second of Kindling vs LibTorch 1.13
// (bench/peers/p1_libtorch.cpp) and PyTorch 1.13 (bench/peers/p1_pytorch.py), on identical work in the
// same run, plus the peak resident memory of the Kindling process vs the LibTorch one.
//
// Every side does a warm-up, then repetitions of `steps` steps of zero_grad -> forward -> loss ->
// backward -> step -> loss.item(), interleaved with the peer's (peer_process.hpp): CPU time, the median
// of the paired ratios, the same count on both sides.
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmath>
#include <kindling/train.hpp>
#include <string>

#include "bench_util.hpp"

#ifndef KINDLING_P1_PEER
#define KINDLING_P1_PEER ""
#endif
#ifndef KINDLING_BENCH_PEERS
#define KINDLING_BENCH_PEERS ""
#endif
#ifndef KINDLING_PYTHON
#define KINDLING_PYTHON "/usr/bin/python3"
#endif

namespace kd = kindling;

namespace {

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

bool exists(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0;
}

long self_peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::single_thread();
  const int steps = opt.quick ? 20 : 300, warmup = opt.quick ? 20 : 150, reps = opt.quick ? 3 : 21;

  // Kindling's side, set up exactly like the peers: all images as float [60000, 784] in [0, 1].
  kd::manual_seed(0);
  kd::data::FashionMNIST train(kd::data::Split::Train);
  kd::Tensor X = train.data().to(kd::kFloat32).view({-1, 784});
  X.div_(255.0);  // in place: no second 188 MB copy at the peak
  const kd::Tensor Y = train.targets();
  const long data_rss = self_peak_rss_kb();
  const std::int64_t batch = 32, batches = X.size(0) / batch;
  SimpleNet model;
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  std::int64_t cursor = 0;
  double last = 0;
  auto run = [&](int count) {
    for (int s = 0; s < count; ++s, ++cursor) {
      const std::int64_t b = cursor % batches;
      const kd::Tensor inputs = X.slice(0, b * batch, (b + 1) * batch);
      const kd::Tensor targets = Y.slice(0, b * batch, (b + 1) * batch);
      optimizer.zero_grad();
      kd::Tensor loss = criterion(model(inputs), targets);
      loss.backward();
      optimizer.step();
      last = loss.item<double>();
    }
  };
  run(warmup);  // like the peers

  const std::string libtorch = KINDLING_P1_PEER;
  const std::string python_peer = std::string(KINDLING_BENCH_PEERS) + "/p1_pytorch.py";
  const std::vector<std::string> args = {std::to_string(steps), std::to_string(warmup)};
  bench::PeerProcess lt, py;
  const bool have_libtorch = exists(libtorch) && lt.start({libtorch, args[0], args[1]});
  const bool have_python =
      exists(python_peer) && exists(KINDLING_PYTHON) && py.start({KINDLING_PYTHON, python_peer, args[0], args[1]});
  if (!have_libtorch) {
    std::fprintf(stderr, "training: LibTorch peer not built (%s); `make bench` builds it (target bench_peers)\n",
                 libtorch.empty() ? "LibTorch was not found at configure time" : libtorch.c_str());
  }
  const int total = warmup + steps * (reps + 1);
  bool agree = true;
  // The peers start from other initial weights (another generator) on the same batches: after the same
  // number of steps the losses agree loosely.
  auto check = [&](const char* name, const bench::PeerRep& rep) {
    const double theirs = std::stod(rep.extra.at("loss"));
    if (!std::isfinite(last) || std::abs(last - theirs) > 0.75) {
      std::fprintf(stderr, "training: after %d steps Kindling's loss is %.4f, %s's %.4f\n", total, last, name,
                   theirs);
      agree = false;
    }
  };
  long lt_rss = 0, lt_data_rss = 0;
  auto timed = [&](bench::PeerProcess& peer, const char* name, long* rss) {
    bench::PeerRep final_rep;
    auto paired = bench::interleave_with(
        [&] { run(steps); },
        [&] {
          auto rep = peer.run();
          if (rep) final_rep = *rep;
          return rep;
        },
        reps);
    if (paired) {
      check(name, final_rep);
      if (rss) *rss = std::stol(final_rep.extra.at("rss_kb"));
    }
    return paired;
  };
  if (have_libtorch) {
    std::sscanf(lt.ready_line().c_str(), "ready data_rss_kb=%ld", &lt_data_rss);
    const auto p = timed(lt, "LibTorch", &lt_rss);
    if (!p) return 1;
    bench::report_rate("P1", "SimpleNet train steps/s (1 thread)", *p, steps, "steps/s", "kindling", "libtorch");
  }
  if (have_python) {
    const auto p = timed(py, "PyTorch", nullptr);
    if (!p) return 1;
    bench::report_rate("P1", "SimpleNet train steps/s vs PyTorch (1 thread)", *p, steps, "steps/s", "kindling",
                       "pytorch-1.13");
  }
  // M1: peak resident memory. Both sides hold the same data (the float images, after reading the
  // uint8 file), so each prints its data-only baseline too; the ratio compares the peaks of the
  // whole process (libraries, data, model, training), the peer's over Kindling's.
  const long rss = self_peak_rss_kb();
  if (have_libtorch) {
    std::printf("BENCH M1 peak RSS SimpleNet training: ratio=%.3f (kindling %.0f MB vs libtorch %.0f MB; "
                "data-only baselines %.0f MB vs %.0f MB; training adds %.1f MB vs %.1f MB)\n",
                static_cast<double>(lt_rss) / static_cast<double>(rss), rss / 1024.0, lt_rss / 1024.0,
                data_rss / 1024.0, lt_data_rss / 1024.0, (rss - data_rss) / 1024.0, (lt_rss - lt_data_rss) / 1024.0);
  }
  std::fflush(stdout);
  if (!agree) return 1;
  if (!opt.quick && !(have_libtorch && have_python)) return 1;  // a full run needs both peers
  return 0;
}
