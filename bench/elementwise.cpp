// P3 — elementwise add, mul and relu on 4M float32 values, 1 thread:
//   Kindling `a + b` (allocates its result, like PyTorch) vs a plain C++ loop into a ready buffer
//   (target ratio >= 0.9), and vs PyTorch 1.13's `a + b` timed in the same run by a child process.
// These ops are memory-bound (3 x 16 MB streamed per call): the benchmark shows what the strided
// loop machinery, dtype dispatch and the allocation cost on top of the bare loop.
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>

#include <kindling/tensor.hpp>

#include "bench_util.hpp"

namespace kd = kindling;

namespace {

constexpr std::int64_t kN = 4 << 20;  // 4M floats = 16 MB per tensor

// PyTorch, 1 thread, same sizes and the same best-of-rounds timing; prints "name seconds" lines.
// (Single quotes delimit the script on the shell command line, so it uses none itself.)
const char* kTorchScript = R"PY(
import sys, time, torch
torch.set_num_threads(1)
n, rounds, iters = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
a = torch.randn(n); b = torch.randn(n)
ops = {"add": lambda: a + b, "mul": lambda: a * b, "relu": lambda: torch.relu(a)}
for name, f in ops.items():
    for _ in range(iters): f()
    best = 1e300
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(iters): f()
        best = min(best, (time.perf_counter() - t0) / iters)
    print(name, repr(best), flush=True)
)PY";

/// Runs the PyTorch timing script; empty map (and a note) when PyTorch is not available.
std::map<std::string, double> time_pytorch(int rounds, int iters) {
  std::map<std::string, double> out;
  const std::string cmd = "/usr/bin/python3 -c '" + std::string(kTorchScript) + "' " + std::to_string(kN) + " " +
                          std::to_string(rounds) + " " + std::to_string(iters) + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return out;
  char line[512];
  while (std::fgets(line, sizeof line, pipe.get())) {
    char name[64];
    double s = 0;
    if (std::sscanf(line, "%63s %lf", name, &s) == 2 && s > 0) out[name] = s;
    else std::fprintf(stderr, "pytorch: %s", line);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::single_thread();
  kd::manual_seed(0);
  const int rounds = opt.quick ? 2 : 15;
  const int iters = opt.quick ? 2 : 10;

  const kd::Tensor a = kd::randn({kN}), b = kd::randn({kN});
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  std::vector<float> out(kN);
  float* __restrict po = out.data();

  struct Op {
    const char* name;
    std::function<kd::Tensor()> kindling;
    std::function<void()> loop;
  };
  const Op ops[] = {
      {"add", [&] { return a + b; }, [&] { for (std::int64_t i = 0; i < kN; ++i) po[i] = pa[i] + pb[i]; }},
      {"mul", [&] { return a * b; }, [&] { for (std::int64_t i = 0; i < kN; ++i) po[i] = pa[i] * pb[i]; }},
      {"relu", [&] { return a.relu(); },
       [&] { for (std::int64_t i = 0; i < kN; ++i) po[i] = pa[i] > 0.0f ? pa[i] : 0.0f; }},
  };

  std::map<std::string, double> kindling_s;
  for (const Op& op : ops) {
    // Same answer first.
    op.loop();
    const kd::Tensor y = op.kindling();
    if (!kd::equal(y, kd::from_blob(out.data(), {kN}, kd::kFloat32))) {
      std::fprintf(stderr, "elementwise bench: %s: Kindling and the plain loop disagree\n", op.name);
      return 1;
    }
    auto k = [&] {
      kd::Tensor y = op.kindling();
      asm volatile("" : : "r"(y.raw_data_ptr()) : "memory");
    };
    auto l = [&] {
      op.loop();
      asm volatile("" : : "r"(po) : "memory");
    };
    const auto [tk, tl] = bench::best_seconds_interleaved(k, l, rounds, iters);
    kindling_s[op.name] = tk;
    bench::report("P3", std::string(op.name) + " 4M float32 vs plain loop", tk, "kindling", tl, "loop");
  }

  const auto torch_s = time_pytorch(rounds, iters);
  for (const Op& op : ops) {
    auto it = torch_s.find(op.name);
    if (it == torch_s.end()) {
      std::printf("BENCH P3 %s 4M float32 vs pytorch: skipped (no timing from /usr/bin/python3 with torch)\n",
                  op.name);
      continue;
    }
    bench::report("P3", std::string(op.name) + " 4M float32 vs pytorch", kindling_s[op.name], "kindling",
                  it->second, "pytorch-1.13");
  }
  return 0;
}
