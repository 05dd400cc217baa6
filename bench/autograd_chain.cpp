// P4 — autograd overhead: a chain of 10,000 tiny ops on a 16-element tensor, alternating
// y = y * w and y = tanh(y), then y.sum().backward(); Kindling vs PyTorch 1.13 (1 thread, timed in
// the same run by bench/peers/p4_pytorch.py). With 16 numbers per op the arithmetic is nothing: what
// is timed is the framework — allocating each result, recording a node (saved tensors, edges),
// then the engine's walk of 10,000 nodes and one backward formula per node. Target ratio >= 4.
// Both sides report the median over repetitions of the process's CPU time (one thread each, so on an
// idle machine that is the wall time; on a shared machine it leaves out time other programs held the
// core); the wall-clock medians are printed on a second line.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include <kindling/autograd.hpp>

#include "bench_util.hpp"

namespace kd = kindling;

namespace {

/// The measured work: forward chain + backward. Returns w.grad().sum() so both sides can be compared.
double chain_fwd_bwd(const kd::Tensor& x, const kd::Tensor& w, int ops) {
  kd::Tensor y = x;
  for (int i = 0; i < ops; ++i) y = (i % 2 == 0) ? y * w : y.tanh();  // y: [16]
  y.sum().backward();
  return w.grad().sum().item<double>();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// CPU seconds used by this process so far.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct PeerResult {
  double median_s = 0;       // CPU time
  double median_wall_s = 0;
  double grad_w_sum = NAN;
};

/// Runs the PyTorch peer on the same x and w (passed as text on stdin); median_s == 0 when
/// /usr/bin/python3 with torch is not available.
PeerResult time_pytorch(const kd::Tensor& x, const kd::Tensor& w, int ops, int reps) {
  PeerResult r;
  std::string values;
  for (const kd::Tensor& t : {x, w})
    for (float v : t.to_vector<float>()) values += std::to_string(v) + " ";  // %f: 6 decimals, same on both sides
  const std::string cmd = "echo '" + values + "' | /usr/bin/python3 " KINDLING_BENCH_PEERS "/p4_pytorch.py " +
                          std::to_string(ops) + " " + std::to_string(reps) + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return r;
  char line[1024];
  while (std::fgets(line, sizeof line, pipe.get())) {
    if (std::sscanf(line, "median_s=%lf median_wall_s=%lf grad_w_sum=%lf", &r.median_s, &r.median_wall_s,
                    &r.grad_w_sum) != 3) {
      r.median_s = 0;
      std::fprintf(stderr, "pytorch: %s", line);
    }
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::single_thread();
  kd::manual_seed(0);
  const int ops = opt.quick ? 1000 : 10000;
  const int reps = opt.quick ? 3 : 15;

  // The inputs as PyTorch will see them: values rounded to the 6 decimals sent on its stdin.
  auto rounded = [](const kd::Tensor& t) {
    std::vector<float> v = t.to_vector<float>();
    for (float& f : v) f = std::stof(std::to_string(f));
    return kd::tensor(v, {static_cast<std::int64_t>(v.size())}).requires_grad_();
  };
  kd::Tensor x = rounded(kd::randn({16}));
  kd::Tensor w = rounded(kd::rand({16}) * 0.5 + 0.75);  // |w| near 1: the chain neither dies nor blows up

  const double grad_w_sum = chain_fwd_bwd(x, w, ops);  // warm-up, and the answer to compare
  std::vector<double> cpu, wall;
  for (int r = 0; r < reps; ++r) {
    x.set_grad(kd::Tensor());
    w.set_grad(kd::Tensor());
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    chain_fwd_bwd(x, w, ops);
    cpu.push_back(cpu_seconds() - c0);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double kindling_s = median(cpu);

  const std::string what = "autograd chain " + std::to_string(ops / 1000) + "k ops fwd+bwd";
  const PeerResult torch = time_pytorch(x, w, ops, reps);
  if (torch.median_s <= 0) {
    std::printf("BENCH P4 %s: skipped (no timing from /usr/bin/python3 with torch; kindling %s)\n", what.c_str(),
                bench::fmt_time(kindling_s).c_str());
    return 0;
  }
  // Same computation on both sides? float32 through 10,000 ops: compare loosely.
  if (!(std::fabs(torch.grad_w_sum - grad_w_sum) <= 1e-3 * std::max(1.0, std::fabs(grad_w_sum)))) {
    std::fprintf(stderr, "autograd_chain bench: w.grad.sum() differs: kindling %.9g, pytorch %.9g\n", grad_w_sum,
                 torch.grad_w_sum);
    return 1;
  }
  bench::report("P4", what, kindling_s, "kindling", torch.median_s, "pytorch-1.13");
  std::printf("  (median of %d runs, CPU time; wall-clock medians: kindling %s, pytorch-1.13 %s)\n", reps,
              bench::fmt_time(median(wall)).c_str(), bench::fmt_time(torch.median_wall_s).c_str());
  return 0;
}
