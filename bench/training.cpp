// P1: the seed's SimpleNet (784-128-10, ReLU), Adam lr 1e-3, CrossEntropyLoss, batches of 32 taken in
// order from Fashion-MNIST in memory, 1 thread: training steps per second of Kindling vs LibTorch 1.13
// (bench/peers/p1_libtorch.cpp) and PyTorch 1.13 (bench/peers/p1_pytorch.py), on identical work in the
// same run, plus the peak resident memory of the Kindling process vs the LibTorch one.
//
// Every side does: warm-up (steps/20), then `steps` timed steps of zero_grad -> forward -> loss ->
// backward -> step -> loss.item(). Rounds alternate between the three so they see the same load; the
// best round of each counts.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

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

struct PeerResult {
  bool ok = false;
  double steps_per_s = 0, final_loss = 0;
  long max_rss_kb = 0;  // of the peer process (wait4's rusage)
};

// Runs `cmd` (a peer printing "steps_per_s=<x> final_loss=<y>") and reads its peak RSS.
PeerResult run_peer(const std::string& cmd) {
  PeerResult r;
  int fds[2];
  if (pipe(fds) != 0) return r;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  FILE* f = fdopen(fds[0], "r");
  const int n = std::fscanf(f, "steps_per_s=%lf final_loss=%lf", &r.steps_per_s, &r.final_loss);
  std::fclose(f);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  r.ok = n == 2 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  r.max_rss_kb = ru.ru_maxrss;
  if (!r.ok) std::fprintf(stderr, "training: peer failed (%s): status %d, %d fields read\n", cmd.c_str(), status, n);
  return r;
}

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
  const int steps = opt.quick ? 100 : 3000, rounds = opt.quick ? 1 : 3;

  // Kindling's side, set up exactly like the peers: all images as float [60000, 784] in [0, 1].
  kd::manual_seed(0);
  kd::data::FashionMNIST train(kd::data::Split::Train);
  kd::Tensor X = train.data().to(kd::kFloat32).view({-1, 784});
  X.div_(255.0);  // in place: no second 188 MB copy at the peak
  const kd::Tensor Y = train.targets();
  const std::int64_t batch = 32, batches = X.size(0) / batch;
  SimpleNet model;
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  std::int64_t cursor = 0;
  auto run = [&](int count) {
    double last = 0;
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
    return last;
  };
  run(std::max(20, steps / 20));  // warm-up, like the peers

  const std::string libtorch = KINDLING_P1_PEER;
  const std::string python_peer = std::string(KINDLING_BENCH_PEERS) + "/p1_pytorch.py";
  const bool have_libtorch = exists(libtorch), have_python = exists(python_peer) && exists(KINDLING_PYTHON);
  if (!have_libtorch) {
    std::fprintf(stderr, "training: LibTorch peer not built (%s); `make bench` builds it (target bench_peers)\n",
                 libtorch.empty() ? "LibTorch was not found at configure time" : libtorch.c_str());
  }
  double best_k = 0, final_k = 0;
  PeerResult best_lt, best_py;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    final_k = run(steps);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best_k = std::max(best_k, steps / secs);
    if (have_libtorch) {
      PeerResult p = run_peer(libtorch + " " + std::to_string(steps));
      if (p.ok && p.steps_per_s > best_lt.steps_per_s) best_lt = p;
    }
    if (have_python) {
      PeerResult p = run_peer(std::string(KINDLING_PYTHON) + " " + python_peer + " " + std::to_string(steps));
      if (p.ok && p.steps_per_s > best_py.steps_per_s) best_py = p;
    }
  }
  const long kindling_rss = self_peak_rss_kb();
  std::fprintf(stderr, "training: kindling %.0f steps/s (final loss %.4f)\n", best_k, final_k);

  bool agree = std::isfinite(final_k) && final_k < 2.5;  // it trains (the loss starts at ~2.3)
  if (best_lt.ok) {
    // Different initial weights, same data and step count: the losses agree loosely.
    agree = agree && std::abs(final_k - best_lt.final_loss) < 0.75;
    std::printf("BENCH P1 SimpleNet train steps/s (1 thread): ratio=%.3f (%.0f vs %.0f steps/s)\n",
                best_k / best_lt.steps_per_s, best_k, best_lt.steps_per_s);
    std::printf("BENCH P1-mem peak RSS: ratio=%.3f (kindling %.0f MB vs libtorch %.0f MB)\n",
                static_cast<double>(best_lt.max_rss_kb) / static_cast<double>(kindling_rss), kindling_rss / 1024.0,
                best_lt.max_rss_kb / 1024.0);
  }
  if (best_py.ok) {
    std::printf("BENCH P1 SimpleNet train steps/s vs PyTorch (1 thread): ratio=%.3f (%.0f vs %.0f steps/s)\n",
                best_k / best_py.steps_per_s, best_k, best_py.steps_per_s);
  }
  std::fflush(stdout);
  if (!agree) {
    std::fprintf(stderr, "training: Kindling's final loss %.4f disagrees with LibTorch's %.4f\n", final_k,
                 best_lt.final_loss);
    return 1;
  }
  if (!opt.quick && !(best_lt.ok && best_py.ok)) return 1;  // a full run needs both peers
  return 0;
}
