// P5 — the data pipeline: Fashion-MNIST's 60,000 training images through ToTensor + RandomHorizontalFlip +
// Normalize, batch 64, shuffled, with 0 and 2 workers: samples/s of a Kindling DataLoader vs PyTorch 1.13's
// DataLoader with torchvision's transforms on the same images (bench/peers/p5_pytorch.py, run in the
// same process tree, 1 intra-op thread). Target ratio >= 5. Interleaved epochs (peer_process.hpp), the
// median of the paired ratios: CPU time with 0 workers, wall-clock time with workers (PyTorch's run in
// child processes its CPU time does not count).
//
// Both loaders do the same work per sample: uint8 [28, 28] -> float32 [1, 28, 28] / 255, a coin flip and
// maybe a mirror, (x - mean) / std; then stack 64 samples. Kindling's workers are threads sharing the
// dataset; PyTorch's are processes started each epoch (the start-up is part of what a user waits for).
// Both sides sum every pixel of the epoch, which a flip does not change: the sums must agree.
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <kindling/data.hpp>

#include "bench_util.hpp"

namespace kd = kindling;
namespace T = kd::data::transforms;

namespace {

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  const std::int64_t n = opt.quick ? 4096 : 60000;
  const int reps = opt.quick ? 2 : 7;
  const std::vector<std::int64_t> workers = {0, 2};

  auto transform = T::Compose({T::ToTensor(), T::RandomHorizontalFlip(0.5), T::Normalize({0.2860}, {0.3530})});
  kd::data::FashionMNIST train(kd::data::Split::Train, transform);
  std::vector<std::int64_t> first(static_cast<std::size_t>(n));
  std::iota(first.begin(), first.end(), std::int64_t{0});
  kd::data::Subset dataset(train, first);

  std::vector<std::pair<bench::PeerSettings, std::unique_ptr<bench::PeerProcess>>> torches;
  for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
    auto proc = std::make_unique<bench::PeerProcess>();
    if (proc->start({"/usr/bin/python3", KINDLING_BENCH_PEERS "/p5_pytorch.py", std::to_string(n)}, "", ps.env))
      torches.emplace_back(ps, std::move(proc));
  }
  int status = 0;
  for (auto w : workers) {
    const std::string what = "FashionMNIST loader (flip+ToTensor+Normalize, bs64, " + std::to_string(w) + " workers" +
                             (w > 0 ? ", wall-clock)" : ")");
    kd::data::DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .num_workers = w, .seed = 0});
    double mine = 0, theirs = 0;
    auto epoch = [&] {
      double total = 0;
      for (auto& [x, y] : loader) total += x.sum().template item<double>();
      mine = total;
    };
    if (torches.empty()) {
      epoch();
      std::printf("BENCH P5 %s: skipped (no /usr/bin/python3 with torch)\n", what.c_str());
      continue;
    }
    for (auto& [ps, torch] : torches) {
      auto paired = bench::interleave_with(epoch, [&] {
        auto rep = torch->run(std::to_string(w));
        if (rep) theirs = std::stod(rep->extra["checksum"]);
        return rep;
      }, reps);
      if (!paired) return 1;
      if (std::abs(mine - theirs) > 1e-4 * std::abs(theirs)) {
        std::fprintf(stderr, "P5: the epochs disagree: kindling sums every pixel to %.6f, pytorch to %.6f\n", mine,
                     theirs);
        status = 1;
      }
      // With workers, PyTorch's work runs in child processes that its CPU time does not count:
      // compare wall-clock time there (both sides use 2 workers on this machine's 2 cores).
      if (w > 0) {
        paired->ratio = paired->wall_ratio;
        paired->lo = paired->wall_lo;
        paired->hi = paired->wall_hi;
        paired->kindling_s = paired->kindling_wall_s;
        paired->peer_s = paired->peer_wall_s;
      }
      // Usage per batch; with workers, only the main processes' (PyTorch's workers are not counted).
      auto sides = bench::Sides::peer(ps, torch->ready_line(), static_cast<double>((n + 63) / 64), "batch");
      sides.kindling_gemm = false;
      sides.peer_gemm = "";
      bench::report_rate("P5", bench::titled(what, ps), *paired, static_cast<double>(n), "samples/s", "kindling",
                         bench::peer_name("pytorch-1.13", ps), sides);
    }
  }
  return status;
}
