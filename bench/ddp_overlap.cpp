// P10: how much of DistributedDataParallel's communication hides behind backward, for chapter 5's
// CNN (conv-relu-pool x2, fc-relu-fc, batch 64 per rank, CrossEntropyLoss, Adam) on 2 ranks, and
// the 2-rank step against the 1-rank step at the same per-rank batch (weak scaling: each rank has a
// core of its own on this 2-core machine, so the ideal is 1.0).
//
// Started by `make bench` like every benchmark; it starts itself again under mpirun -np 2 (the MPI
// job is the measurement; KINDLING_MPIEXEC, from CMake's FindMPI). In each repetition both ranks
// time, in alternating order, `steps` steps of each of:
//   ddp       the DDP step: forward, backward with the buckets' all-reduces started by the hooks,
//             the wait for them, Adam;
//   local     the same step under no_sync(): the computation alone, both ranks busy;
//   comm      the buckets' all-reduces alone (the same sizes, started back to back, then waited);
//   one-rank  rank 0 alone trains its own copy without DDP, while rank 1 waits in a barrier: the
//             1-rank step (rank 1's core is otherwise idle, as in a 1-process run).
// hidden = 1 - (ddp - local) / comm: the share of the communication's time that the step did not
// pay for. Wall-clock time (overlap is about elapsed time; the communication thread's CPU time is
// printed too), rank 0's, the median over repetitions with the interquartile range.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <kindling/distributed.hpp>
#include <kindling/train.hpp>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace kd = kindling;
namespace dist = kindling::distributed;

#ifndef KINDLING_MPIEXEC
#define KINDLING_MPIEXEC "mpirun"
#endif

namespace {

constexpr std::int64_t kBatch = 64;  // per rank

// Chapter 5's CNN as P6 (cnn_train.cpp) trains it, without P6's fixed initial weights; written out here
// rather than shared because book/captured/bench.txt pins cnn_train.cpp's source by its hash.
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
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = pool(relu(conv1(x)));  // [64, 32, 14, 14]
    h = pool(relu(conv2(h)));             // [64, 64, 7, 7]
    return fc2(relu(fc1(h.flatten(1))));  // [64, 10]
  }
};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Starts this program again as an MPI job of 2 ranks and returns its exit status. mpirun refuses to
// run as root (CI runs as root) without the two OMPI_ALLOW_* variables: they are set for the child
// only; no rank is pinned to a core (the job must not fight other work for one core).
int relaunch(int argc, char** argv) {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 1;
  exe[n] = '\0';
  std::vector<std::string> args = {KINDLING_MPIEXEC, "-np", "2", "--oversubscribe", "--bind-to", "none", exe, "--rank"};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    execvp(cargs[0], cargs.data());
    std::perror(KINDLING_MPIEXEC);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
  bool rank_process = false;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--rank") rank_process = true;
    else rest.push_back(argv[i]);
  }
  if (!rank_process) return relaunch(argc, argv);
  const bench::Options opt = bench::parse(static_cast<int>(rest.size()), rest.data());
  bench::process_settings();
  dist::init_process_group();
  const int rank = dist::get_rank(), world = dist::get_world_size();
  if (world != 2) {
    if (rank == 0) std::printf("BENCH P10 DDP overlap: failed (the job has %d ranks, not 2)\n", world);
    dist::destroy_process_group();
    return 1;
  }
  const int steps = opt.quick ? 2 : 10, reps = opt.quick ? 2 : 11, warmup = 3;

  kd::manual_seed(10 + rank);
  CNN model, alone;  // `alone`: rank 0's 1-rank copy
  dist::DistributedDataParallel ddp(model);  // PyTorch's buckets: 1 MB first, then 25 MB
  kd::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  kd::optim::Adam alone_optimizer(alone.parameters(), {.lr = 1e-3});
  kd::nn::CrossEntropyLoss criterion;
  kd::Generator gen(1234 + rank);
  const kd::Tensor x = kd::randn({kBatch, 1, 28, 28}, {}, &gen);
  const kd::Tensor y = kd::randint(0, 10, {kBatch}, {}, &gen).to(kd::kInt64);

  // The buckets' flat buffers, as DDP all-reduces them (sizes from its bucket assignment).
  std::vector<kd::Tensor> bucket_buffers;
  double grad_bytes = 0;
  {
    const auto params = model.parameters();
    for (const auto& bucket : ddp.bucket_indices()) {
      std::int64_t n = 0;
      for (std::size_t i : bucket) n += params[i].numel();
      bucket_buffers.push_back(kd::zeros({n}));
      grad_bytes += 4.0 * static_cast<double>(n);
    }
  }

  auto ddp_step = [&] {
    optimizer.zero_grad();
    criterion(ddp(x), y).backward();
    optimizer.step();
  };
  auto local_step = [&] {
    optimizer.zero_grad();
    auto guard = ddp.no_sync();
    criterion(ddp(x), y).backward();
    optimizer.step();
  };
  auto comm = [&] {
    std::vector<dist::Work> works;
    for (const kd::Tensor& b : bucket_buffers) works.push_back(dist::all_reduce(b, dist::ReduceOp::SUM, true));
    for (dist::Work& w : works) w.wait();
  };
  auto one_rank_step = [&] {
    if (rank != 0) return;
    alone_optimizer.zero_grad();
    criterion(alone(x), y).backward();
    alone_optimizer.step();
  };
  struct Phase {
    const char* name;
    std::function<void()> fn;
    std::vector<double> wall, cpu;  // per step, rank 0
  };
  std::vector<Phase> phases = {{"ddp", ddp_step, {}, {}},
                               {"local", local_step, {}, {}},
                               {"comm", comm, {}, {}},
                               {"one-rank", one_rank_step, {}, {}}};
  for (auto& p : phases) {
    for (int i = 0; i < warmup; ++i) p.fn();
    dist::barrier();
  }
  for (int r = 0; r < reps; ++r) {
    for (std::size_t k = 0; k < phases.size(); ++k) {
      Phase& p = phases[r % 2 ? phases.size() - 1 - k : k];  // alternate the order
      dist::barrier();
      const bench::Usage u0 = bench::self_usage();
      const double t0 = now();
      for (int i = 0; i < steps; ++i) p.fn();
      const double t1 = now();
      const bench::Usage u1 = bench::self_usage();
      dist::barrier();
      p.wall.push_back((t1 - t0) / steps);
      const bench::Usage du = u1 - u0;
      p.cpu.push_back((du.user_s + du.sys_s) / steps);
    }
  }
  if (rank == 0) {
    const std::vector<double>&a = phases[0].wall, &b = phases[1].wall, &c = phases[2].wall, &s = phases[3].wall;
    std::vector<double> hidden, scaling;
    for (int r = 0; r < reps; ++r) {
      hidden.push_back(1.0 - (a[r] - b[r]) / c[r]);
      scaling.push_back(a[r] / s[r]);
    }
    using bench::quantile;
    // each phase's median per step, printed as "12.345 ms"
    auto med = [](const std::vector<double>& v) { return bench::fmt_time(quantile(v, 0.5)); };
    std::printf(
        "BENCH P10 DDP overlap, CNN batch 64 per rank, 2 ranks: hidden=%.0f%% spread=[%.0f%%..%.0f%%] of the "
        "all-reduce time (goal >= 50%%) | step: ddp=%s local=%s comm-alone=%s one-rank=%s | ratio=%.2f "
        "spread=[%.2f..%.2f] (2-rank DDP step / 1-rank step, goal <= 1.10) | %zu bucket(s), %.2f MB of gradients "
        "| cpu per step (process, with the communication thread): ddp=%s local=%s comm=%s | wall time, rank 0, "
        "median of %d repetitions of %d steps | threads=1 per rank cpu=%s\n",
        100 * quantile(hidden, 0.5), 100 * quantile(hidden, 0.25), 100 * quantile(hidden, 0.75), med(a).c_str(),
        med(b).c_str(), med(c).c_str(), med(s).c_str(), quantile(scaling, 0.5), quantile(scaling, 0.25),
        quantile(scaling, 0.75), bucket_buffers.size(), grad_bytes / 1e6, med(phases[0].cpu).c_str(),
        med(phases[1].cpu).c_str(), med(phases[2].cpu).c_str(), reps, steps, bench::cpu_model().c_str());
  }
  dist::destroy_process_group();
  return 0;
}
