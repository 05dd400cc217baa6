// P5 — the data pipeline: Fashion-MNIST's 60,000 training images through ToTensor + RandomHorizontalFlip +
// Normalize, batch 64, shuffled, with 0 and 2 workers: samples/s of a Kindling DataLoader vs PyTorch 1.13's
// DataLoader with torchvision's transforms on the same images (bench/peers/p5_pytorch.py, run in the
// same process tree, 1 intra-op thread). Target ratio >= 5.
//
// Both loaders do the same work per sample: uint8 [28, 28] -> float32 [1, 28, 28] / 255, a coin flip and
// maybe a mirror, (x - mean) / std; then stack 64 samples. Kindling's workers are threads sharing the
// dataset; PyTorch's are processes started each epoch (the start-up is part of what a user waits for).
// Both sides sum every pixel of the epoch, which a flip does not change: the sums must agree.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <kindling/data.hpp>

#include "bench_util.hpp"

namespace kd = kindling;
namespace T = kd::data::transforms;

namespace {

struct Run {
  double samples_per_s = 0;
  double checksum = 0;
};

/// Best samples/s over `rounds` epochs of a fresh-ordered loader, and the sum of every pixel.
template <class D>
Run time_kindling(const D& dataset, std::int64_t workers, int rounds) {
  kd::data::DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .num_workers = workers, .seed = 0});
  Run run;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    double total = 0;
    std::int64_t count = 0;
    for (auto& [x, y] : loader) {
      total += x.sum().template item<double>();
      count += x.size(0);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    run.samples_per_s = std::max(run.samples_per_s, static_cast<double>(count) / s);
    run.checksum = total;
  }
  return run;
}

/// Runs the PyTorch peer; worker count -> result (empty when PyTorch is unavailable).
std::map<std::int64_t, Run> time_pytorch(std::int64_t n, int rounds, const std::vector<std::int64_t>& workers) {
  std::map<std::int64_t, Run> out;
  std::string cmd = "/usr/bin/python3 " KINDLING_BENCH_PEERS "/p5_pytorch.py " + std::to_string(n) + " " +
                    std::to_string(rounds);
  for (auto w : workers) cmd += " " + std::to_string(w);
  cmd += " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return out;
  char line[1024];
  while (std::fgets(line, sizeof line, pipe.get())) {
    long long w = 0;
    double sps = 0, checksum = 0;
    if (std::sscanf(line, "workers=%lld samples_per_s=%lf checksum=%lf", &w, &sps, &checksum) == 3 && sps > 0) {
      out[w] = {sps, checksum};
    } else {
      std::fprintf(stderr, "pytorch: %s", line);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::single_thread();
  const std::int64_t n = opt.quick ? 4096 : 60000;
  const int rounds = opt.quick ? 1 : 3;
  const std::vector<std::int64_t> workers = {0, 2};

  auto transform = T::Compose({T::ToTensor(), T::RandomHorizontalFlip(0.5), T::Normalize({0.2860}, {0.3530})});
  kd::data::FashionMNIST train(kd::data::Split::Train, transform);
  std::vector<std::int64_t> first(static_cast<std::size_t>(n));
  std::iota(first.begin(), first.end(), std::int64_t{0});
  kd::data::Subset dataset(train, first);

  std::map<std::int64_t, Run> kindling;
  for (auto w : workers) kindling[w] = time_kindling(dataset, w, rounds);
  const auto torch = time_pytorch(n, opt.quick ? 1 : 2, workers);

  int status = 0;
  for (auto w : workers) {
    const std::string what = "FashionMNIST loader (flip+ToTensor+Normalize, bs64, " + std::to_string(w) + " workers)";
    const Run& k = kindling[w];
    auto it = torch.find(w);
    if (it == torch.end()) {
      std::printf("BENCH P5 %s: skipped (no timing from /usr/bin/python3 with torch); kindling %.0f samples/s\n",
                  what.c_str(), k.samples_per_s);
      continue;
    }
    const Run& p = it->second;
    if (std::abs(k.checksum - p.checksum) > 1e-4 * std::abs(p.checksum)) {
      std::fprintf(stderr, "P5: the epochs disagree: kindling sums every pixel to %.6f, pytorch to %.6f\n", k.checksum,
                   p.checksum);
      status = 1;
    }
    std::printf("BENCH P5 %s: ratio=%.3f (kindling %.0f samples/s vs pytorch-1.13 %.0f samples/s)\n", what.c_str(),
                k.samples_per_s / p.samples_per_s, k.samples_per_s, p.samples_per_s);
    std::fflush(stdout);
  }
  return status;
}
