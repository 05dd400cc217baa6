#pragma once
// Helpers shared by the benchmarks: one-thread set-up, robust timing, and the BENCH line format.
//
// Every benchmark prints lines of exactly this form (scripts/run-bench.sh collects them):
//   BENCH <id> <what>: ratio=<number> (<kindling figure> vs <peer figure>)
// with the ratio oriented so that bigger is better for Kindling (peer time / Kindling time).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" void openblas_set_num_threads(int num_threads);

namespace bench {

/// Parsed command line: `--quick` runs a few iterations only (the CTest smoke test).
struct Options {
  bool quick = false;
};

inline Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) o.quick = true;
    else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: %s [--quick]\n  --quick  a few iterations only (smoke test; ratios are noisy)\n", argv[0]);
      std::exit(0);
    } else {
      std::fprintf(stderr, "%s: unknown argument '%s' (try --help)\n", argv[0], argv[i]);
      std::exit(2);
    }
  }
  return o;
}

/// One thread everywhere, for a fair comparison: OpenBLAS here, and any child process (PyTorch) too.
inline void single_thread() {
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("KINDLING_NUM_THREADS", "1", 1);
  openblas_set_num_threads(1);
}

/// Seconds per call of f: the best (lowest) mean over `rounds` rounds of `iters` calls each, after
/// one warm-up round. The minimum is the least noisy estimate on a shared machine.
template <class F> double best_seconds(F&& f, int rounds, int iters) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < iters; ++i) f();  // warm-up: caches, page faults, lazy init
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = clock::now();
    for (int i = 0; i < iters; ++i) f();
    const double s = std::chrono::duration<double>(clock::now() - t0).count() / iters;
    best = std::min(best, s);
  }
  return best;
}

/// Times a and b in alternating rounds (so both see the same machine load), best round of each.
template <class A, class B>
std::pair<double, double> best_seconds_interleaved(A&& a, B&& b, int rounds, int iters) {
  double ba = 1e300, bb = 1e300;
  for (int r = 0; r < rounds; ++r) {
    ba = std::min(ba, best_seconds(a, 1, iters));
    bb = std::min(bb, best_seconds(b, 1, iters));
  }
  return {ba, bb};
}

/// "1.23 ms" / "456.7 us"
inline std::string fmt_time(double s) {
  char buf[64];
  if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  return buf;
}

/// Prints one BENCH line; ratio = peer / kindling (bigger is better for Kindling).
inline void report(const char* id, const std::string& what, double kindling_s, const std::string& kindling_name,
                   double peer_s, const std::string& peer_name) {
  std::printf("BENCH %s %s: ratio=%.3f (%s %s vs %s %s)\n", id, what.c_str(), peer_s / kindling_s,
              kindling_name.c_str(), fmt_time(kindling_s).c_str(), peer_name.c_str(), fmt_time(peer_s).c_str());
  std::fflush(stdout);
}

/// Prints one BENCH line from an interleaved comparison (peer_process.hpp): the median of the paired
/// ratios, the two medians, and the interquartile range of the ratios as the spread.
template <class Paired>
void report_paired(const char* id, const std::string& what, const Paired& p, const std::string& kindling_name,
                   const std::string& peer_name) {
  std::printf("BENCH %s %s: ratio=%.3f (%s %s vs %s %s) spread=[%.3f..%.3f]\n", id, what.c_str(), p.ratio,
              kindling_name.c_str(), fmt_time(p.kindling_s).c_str(), peer_name.c_str(), fmt_time(p.peer_s).c_str(),
              p.lo, p.hi);
  std::fflush(stdout);
}

}  // namespace bench
