#pragma once
// Helpers shared by the benchmarks: one-thread set-up and the BENCH line format. Timing is one method
// everywhere (peer_process.hpp): interleaved repetitions, the same count on both sides, CPU time, the
// median of the paired ratios with their interquartile range.
//
// Every benchmark prints lines of exactly this form (scripts/run-bench.sh collects them):
//   BENCH <id> <what>: ratio=<number> (<kindling figure> vs <peer figure>) spread=[<lo>..<hi>]
// with the ratio oriented so that bigger is better for Kindling (peer time / Kindling time).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "peer_process.hpp"

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

/// "1.23 ms" / "456.7 us"
inline std::string fmt_time(double s) {
  char buf[64];
  if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  return buf;
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

/// The same for work counted in units (training steps, samples): rates from the median CPU times of a
/// repetition of `units` units. The ratio is still the median of the paired ratios.
template <class Paired>
void report_rate(const char* id, const std::string& what, const Paired& p, double units, const char* unit,
                 const std::string& kindling_name, const std::string& peer_name) {
  std::printf("BENCH %s %s: ratio=%.3f (%s %.0f %s vs %s %.0f %s) spread=[%.3f..%.3f]\n", id, what.c_str(), p.ratio,
              kindling_name.c_str(), units / p.kindling_s, unit, peer_name.c_str(), units / p.peer_s, unit, p.lo,
              p.hi);
  std::fflush(stdout);
}

}  // namespace bench
