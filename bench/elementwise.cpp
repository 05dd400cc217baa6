// P3 — elementwise add, mul and relu on 4M float32 values, 1 thread:
//   Kindling `a + b` (allocates its result, like PyTorch) vs a plain C++ loop into a ready buffer
//   (target ratio >= 0.9), and vs PyTorch 1.13's `a + b` timed in the same run by a child process.
// These ops are memory-bound (3 x 16 MB streamed per call): the benchmark shows what the strided
// loop machinery, dtype dispatch and the allocation cost on top of the bare loop. The bandwidth
// limit is measured in the same run, as STREAM does: its triad c = a + s * b (three 16 MB streams,
// like add and mul) and its copy c = a (two, like relu), counted as STREAM counts bytes; the
// "vs memory bandwidth" lines are the share of that limit each op reaches (1.0 = at the limit).
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include <kindling/tensor.hpp>

#include "bench_util.hpp"

namespace kd = kindling;

namespace {

constexpr std::int64_t kN = 4 << 20;  // 4M floats = 16 MB per tensor

// PyTorch, 1 thread, same sizes, in the interleaving protocol of peer_process.hpp: "run <op>" runs
// `iters` calls of that op. (Single quotes delimit the script on the shell command line, so it uses
// none itself.)
const char* kTorchScript = R"PY(
import sys, time, torch
torch.set_num_threads(1)
n, iters = int(sys.argv[1]), int(sys.argv[2])
a = torch.randn(n); b = torch.randn(n)
ops = {"add": lambda: a + b, "mul": lambda: a * b, "relu": lambda: torch.relu(a)}
for f in ops.values(): f()
print("ready", flush=True)
for line in sys.stdin:
    words = line.split()
    if len(words) != 2 or words[0] != "run": break
    f = ops[words[1]]
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(iters): f()
    print(f"cpu={time.process_time() - c0!r} wall={time.perf_counter() - t0!r}", flush=True)
)PY";

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  kd::manual_seed(0);
  const int reps = opt.quick ? 3 : 21;
  const int iters = opt.quick ? 2 : 10;

  const kd::Tensor a = kd::randn({kN}), b = kd::randn({kN});
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  std::vector<float> out(kN);
  float* __restrict po = out.data();

  // STREAM's kernels, into the same ready buffer (the scalar is opaque so nothing folds it away).
  volatile float scalar_source = 3.0f;
  const float s = scalar_source;
  const std::function<void()> triad = [&] { bench::triad(po, pa, pb, s, kN); };  // bench_util.hpp
  const std::function<void()> copy = [&] { for (std::int64_t i = 0; i < kN; ++i) po[i] = pa[i]; };

  struct Op {
    const char* name;
    std::function<kd::Tensor()> kindling;
    std::function<void()> loop;
    int streams;                         // 16 MB arrays read or written per call
    const std::function<void()>* limit;  // the STREAM kernel with as many streams
    const char* limit_name;
  };
  const Op ops[] = {
      {"add", [&] { return a + b; }, [&] { for (std::int64_t i = 0; i < kN; ++i) po[i] = pa[i] + pb[i]; }, 3, &triad,
       "triad"},
      {"mul", [&] { return a * b; }, [&] { for (std::int64_t i = 0; i < kN; ++i) po[i] = pa[i] * pb[i]; }, 3, &triad,
       "triad"},
      {"relu", [&] { return a.relu(); },
       [&] { for (std::int64_t i = 0; i < kN; ++i) po[i] = pa[i] > 0.0f ? pa[i] : 0.0f; }, 2, &copy, "copy"},
  };

  // PyTorch tuned and as installed (bench_util.hpp: PeerSettings): a 16 MB result is above glibc's
  // mmap threshold, so the peer as installed gets it from the kernel, page by page, at every call.
  std::vector<std::pair<bench::PeerSettings, std::unique_ptr<bench::PeerProcess>>> torches;
  for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
    auto proc = std::make_unique<bench::PeerProcess>();
    if (proc->start({"/usr/bin/python3", "-c", kTorchScript, std::to_string(kN), std::to_string(iters)}, "", ps.env))
      torches.emplace_back(ps, std::move(proc));
  }
  const bool have_torch = !torches.empty();
  for (const Op& op : ops) {
    // Same answer first.
    op.loop();
    const kd::Tensor y = op.kindling();
    if (!kd::equal(y, kd::from_blob(out.data(), {kN}, kd::kFloat32))) {
      std::fprintf(stderr, "elementwise bench: %s: Kindling and the plain loop disagree\n", op.name);
      return 1;
    }
    auto k = [&] {
      for (int i = 0; i < iters; ++i) {
        kd::Tensor y = op.kindling();
        asm volatile("" : : "r"(y.raw_data_ptr()) : "memory");
      }
    };
    auto l = [&] {
      for (int i = 0; i < iters; ++i) {
        op.loop();
        asm volatile("" : : "r"(po) : "memory");
      }
    };
    auto per_call = [&](bench::Paired p) {
      p.kindling_s /= iters;
      p.peer_s /= iters;
      return p;
    };
    const auto vs_loop = bench::interleave_local(k, l, reps);
    bench::Sides local;  // both sides in this process
    local.units = iters, local.unit = "call", local.kindling_gemm = false;
    bench::report_paired("P3", std::string(op.name) + " 4M float32 vs plain loop", per_call(*vs_loop), "kindling",
                         "loop", local);
    auto stream = [&] {
      for (int i = 0; i < iters; ++i) {
        (*op.limit)();
        asm volatile("" : : "r"(po) : "memory");
      }
    };
    const bench::Paired vs_bw = per_call(*bench::interleave_local(k, stream, reps));
    const double gb = op.streams * static_cast<double>(kN) * sizeof(float) / 1e9;
    std::printf("BENCH P3 %s 4M float32 vs memory bandwidth (STREAM %s): ratio=%.3f (kindling %.1f GB/s vs %s "
                "%.1f GB/s) spread=[%.3f..%.3f]\n",
                op.name, op.limit_name, vs_bw.ratio, gb / vs_bw.kindling_s, op.limit_name, gb / vs_bw.peer_s,
                vs_bw.lo, vs_bw.hi);
    std::fflush(stdout);
    if (!have_torch) {
      std::printf("BENCH P3 %s 4M float32 vs pytorch: skipped (no timing from /usr/bin/python3 with torch)\n",
                  op.name);
      continue;
    }
    for (auto& [ps, torch] : torches) {
      const auto vs_torch = bench::interleave(k, *torch, reps, op.name);
      if (!vs_torch) return 1;
      auto sides = bench::Sides::peer(ps, torch->ready_line(), iters, "call");
      sides.kindling_gemm = false;
      bench::report_paired("P3", bench::titled(std::string(op.name) + " 4M float32 vs pytorch", ps),
                           per_call(*vs_torch), "kindling", bench::peer_name("pytorch-1.13", ps), sides);
    }
  }
  return 0;
}
