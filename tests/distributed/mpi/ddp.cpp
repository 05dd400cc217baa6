// DistributedDataParallel on every rank of an mpirun job, against one process training on the
// whole batch: N ranks x batch B/N must give the parameters of 1 process x batch B after K SGD
// steps (float32, to rounding: the average of N shard gradients is added in another order than
// the full batch's mean). Run with tiny buckets, so several all-reduces are in flight during
// backward, and with no_sync() accumulating two micro-batches.
#include <kindling/distributed.hpp>
#include <kindling/nn.hpp>
#include <kindling/optim/sgd.hpp>
#include <kindling/tensor.hpp>

#include <cstdio>
#include <string>

namespace kd = kindling;
namespace dist = kindling::distributed;

namespace {
struct Net : kd::nn::Module {
  kd::nn::Linear fc1{12, 16};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{16, 8};
  kd::nn::Linear fc3{8, 3};
  Net() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc3(relu(fc2(relu(fc1(x))))); }
};

kd::Tensor loss_of(const kd::Tensor& out, const kd::Tensor& y) { return ((out - y) * (out - y)).mean(); }

void expect(bool ok, const std::string& what) {
  if (!ok) dist::abort_job("check failed: " + what);
}

// Trains K steps with DDP on this rank's rows and K steps on one process with every row, from
// the same start, and compares. `micro` > 1: each step accumulates that many micro-batches, all
// but the last under no_sync().
void run(const char* label, dist::DistributedDataParallelOptions options, int micro, int rank, int world) {
  const std::int64_t B = 8 * world * micro, K = 5;
  kd::manual_seed(100 + rank);  // different starts on each rank: DDP's broadcast must fix them
  Net net;
  dist::DistributedDataParallel ddp(net, options);
  Net single;  // the 1-process run, from the same (rank 0's) parameters
  {
    kd::NoGradGuard no_grad;
    auto a = single.parameters(), b = net.parameters();
    for (std::size_t i = 0; i < a.size(); ++i) a[i].copy_(b[i]);
  }
  kd::optim::SGD opt(net.parameters(), {.lr = 0.1});
  kd::optim::SGD opt1(single.parameters(), {.lr = 0.1});
  kd::Generator data_gen(7);  // the same data on every rank
  for (int step = 0; step < K; ++step) {
    kd::Tensor x = kd::randn({B, 12}, {}, &data_gen), y = kd::randn({B, 3}, {}, &data_gen);
    // one process: the mean over the whole batch (micro-batches of B/micro rows, averaged)
    opt1.zero_grad();
    const std::int64_t m = B / micro;
    for (int k = 0; k < micro; ++k) {
      (loss_of(single(x.slice(0, k * m, (k + 1) * m)), y.slice(0, k * m, (k + 1) * m)) / micro).backward();
    }
    opt1.step();
    // DDP: rank r's rows of each micro-batch
    opt.zero_grad();
    const std::int64_t s = m / world;
    for (int k = 0; k < micro; ++k) {
      const std::int64_t lo = k * m + rank * s;
      kd::Tensor loss = loss_of(ddp(x.slice(0, lo, lo + s)), y.slice(0, lo, lo + s)) / micro;
      if (k + 1 < micro) {
        auto guard = ddp.no_sync();
        loss.backward();
      } else {
        loss.backward();
      }
    }
    opt.step();
  }
  auto a = single.parameters(), b = net.parameters();
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
    expect(kd::allclose(a[i], b[i], 1e-5, 1e-6), std::string(label) + ": parameter " + std::to_string(i) +
                                                     " differs from the 1-process run");
  }
  // Every rank holds the same parameters (bit for bit: the same averaged gradients).
  for (const kd::Tensor& p : net.parameters()) {
    kd::Tensor mine = p.clone(), max = p.clone();
    dist::all_reduce(max, dist::ReduceOp::MAX);
    expect(kd::equal(mine, max), std::string(label) + ": the ranks' parameters differ");
  }
  if (rank == 0) {
    std::printf("ddp %s: %zu bucket(s), largest difference from 1 process %.3g\n", label,
                ddp.bucket_indices().size(), worst);
  }
}
}  // namespace

int main() {
  dist::init_process_group();
  const int rank = dist::get_rank(), world = dist::get_world_size();
  run("default buckets", {}, 1, rank, world);
  // 300-byte buckets: the 8x3 + 3 output layer, then one bucket per parameter or so.
  run("small buckets", {.bucket_cap_mb = 300.0 / (1 << 20), .first_bucket_mb = 100.0 / (1 << 20)}, 1, rank, world);
  run("no_sync accumulation", {.bucket_cap_mb = 300.0 / (1 << 20)}, 2, rank, world);
  dist::barrier();
  if (rank == 0) std::printf("ddp: every check passed on %d ranks\n", world);
  dist::destroy_process_group();
  return 0;
}
