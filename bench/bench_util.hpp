#pragma once
// Helpers shared by the benchmarks: one-thread set-up, the peers' settings, the machine's description,
// STREAM's triad, and the BENCH line format. Timing is one method everywhere (peer_process.hpp):
// interleaved repetitions (alternating which side goes first), the same count on both sides, CPU time,
// the median of the paired ratios with their interquartile range.
//
// Every benchmark prints lines of this form (scripts/run-bench.sh collects them):
//   BENCH <id> <what>: ratio=<number> (<kindling figure> vs <peer figure>) spread=[<lo>..<hi>] [floor=<t>
//     (<x> of floor)] | kindling user=<us> sys=<us> us/<unit> faults=<n>/<unit> gemm=<libraries:isa>
//     | <peer> user=... sys=... faults=... gemm=... [alloc=<allocator>] | cpu="<model>" peer=<mode>
// (one line) with the ratio oriented so that bigger is better for Kindling (peer time / Kindling time):
//   user, sys  CPU microseconds per unit of work in user space and in the kernel, summed over the timed
//              repetitions (getrusage; a peer's from /proc/<pid>/stat)
//   faults     minor page faults per unit: memory the allocator gave back to the OS and touched again
//   gemm       the GEMM libraries loaded in that process and the instruction set each chose
//              (bench/peers/backend_info.hpp)
//   ftz        whether that process flushes denormals to zero (kd::set_flush_denormal,
//              torch.set_flush_denormal): Kindling always, a tuned peer too, an as-installed peer not
//   floor      the training step's floor (floor.hpp): its products at the raw GEMM rate and its
//              compulsory memory traffic at the STREAM rate, both measured in the same run
//   peer=      tuned: the peer runs with the allocator setting that removes its page faults and
//              flushes denormals (PeerSettings below); as-installed: the peer as a user gets it; in-process: the other
//              side is a loop or a library call in this process.
// Each framework comparison prints a tuned line, then the same comparison against the as-installed peer.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <kindling/tensor/denormal.hpp>

#include "peer_process.hpp"
#include "peers/backend_info.hpp"

extern "C" void openblas_set_num_threads(int num_threads);

namespace bench {

// ---- the peers' settings ------------------------------------------------------------------------
//
// glibc's malloc serves a block of 128 KB or more with mmap and gives it back with munmap when it is
// freed (the threshold adapts up to 32 MB), and trims the heap's top above 128 KB: a framework that
// frees its ~400 KB activations every step gets fresh zero pages from the kernel at the next step, one
// minor fault per 4 KB page. Measured on SimpleNet's LibTorch step: ~160 faults and ~45 % of the CPU
// time in the kernel. Kindling keeps freed blocks in its own caching allocator and has no such faults,
// so a comparison against the peer as installed measures glibc, not the framework. The tuned peer runs
// with one of these (PyTorch's CPU performance guide recommends the preloaded allocators):
//   tunables  GLIBC_TUNABLES=glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=1073741824
//             (blocks up to 64 MB come from the heap, and the heap is not trimmed below 1 GB)
//   jemalloc  LD_PRELOAD=libjemalloc.so.2 (Debian libjemalloc2)
//   tcmalloc  LD_PRELOAD=libtcmalloc_minimal.so.4 (Debian libtcmalloc-minimal4)
// Measured on a Zen 3 (2 cores, loaded; 1 thread, CPU time of interleaved repetitions, median ms per
// repetition, page faults per repetition; bench/peers/pick_alloc.py measures them again):
//                        glibc as installed   tunables       jemalloc       tcmalloc
//   P1 LibTorch 300 steps  355 (49,000 faults)  253 (0)        206 (330)      229 (13)
//   P1 PyTorch 300 steps   403 (44,000)         262 (0)        267 (317)      250 (0)
//   P6 LibTorch 5 steps    334 (21,000)         257 (0)        280 (6,300)    243 (89)
// tcmalloc is the fastest or close to it everywhere and leaves (almost) no faults; jemalloc gives pages
// back to the OS after a while (its decay) and faults again on the CNN. KINDLING_BENCH_PEER_ALLOC=
// tunables|jemalloc|tcmalloc picks another; a preloaded allocator that is not installed falls back to the
// tunables (and the line says alloc=tunables).
inline constexpr const char* kTunedAlloc = "tcmalloc";
inline constexpr const char* kGlibcTunables =
    "glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=1073741824";

/// How a peer process is started: the environment it gets and the words that describe it on a line.
struct PeerSettings {
  std::string mode;   // "tuned" or "as-installed"
  std::string alloc;  // "tunables", "jemalloc", "tcmalloc" or "glibc" (the defaults)
  std::vector<std::pair<std::string, std::string>> env;
};

inline bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// The tuned peer also flushes denormals (KINDLING_BENCH_FLUSH_DENORMAL=1: the peers call
// torch.set_flush_denormal(True), or set the same two MXCSR bits in LibTorch, backend_info.hpp), as every
// Kindling benchmark does (process_settings below). On an Intel Xeon with AVX-512, SimpleNet's Kindling
// step took 409 us of user time with denormals and 274 us without (two `make bench` runs): Adam's
// running averages of weights whose gradient stays zero decay through the denormal range, and each
// operation on one costs a microcode assist.
inline PeerSettings peer_settings(bool tuned) {
  if (!tuned) {
    return {"as-installed", "glibc",
            {{"GLIBC_TUNABLES", ""}, {"LD_PRELOAD", ""}, {"KINDLING_BENCH_FLUSH_DENORMAL", ""}}};
  }
  const std::pair<std::string, std::string> ftz{"KINDLING_BENCH_FLUSH_DENORMAL", "1"};
  std::string want = kTunedAlloc;
  if (const char* e = std::getenv("KINDLING_BENCH_PEER_ALLOC"); e && *e) want = e;
  const std::string dir = "/usr/lib/x86_64-linux-gnu/";
  if (want == "jemalloc" && file_exists(dir + "libjemalloc.so.2"))
    return {"tuned", "jemalloc", {{"GLIBC_TUNABLES", ""}, {"LD_PRELOAD", dir + "libjemalloc.so.2"}, ftz}};
  if (want == "tcmalloc" && file_exists(dir + "libtcmalloc_minimal.so.4"))
    return {"tuned", "tcmalloc", {{"GLIBC_TUNABLES", ""}, {"LD_PRELOAD", dir + "libtcmalloc_minimal.so.4"}, ftz}};
  return {"tuned", "tunables", {{"GLIBC_TUNABLES", kGlibcTunables}, {"LD_PRELOAD", ""}, ftz}};
}

/// Set by parse() for `--quick`: the CTest smoke test runs each peer once, tuned only (the as-installed
/// line is the same code in another environment; `make bench` prints both).
inline bool g_quick = false;

/// The two ways every framework peer runs: tuned first, then as installed (tuned only under --quick).
inline std::vector<PeerSettings> both_peer_settings() {
  if (g_quick) return {peer_settings(true)};
  return {peer_settings(true), peer_settings(false)};
}

inline std::string describe_peers() {
  std::string out;
  for (const PeerSettings& s : {peer_settings(true), peer_settings(false)}) {
    out += s.mode + ": " + s.alloc;
    for (const auto& [k, v] : s.env)
      if (!v.empty()) out += " " + k + "=" + v;
    out += "; ";
  }
  return out + "threads: 1 (OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1, torch.set_num_threads(1)); denormals: "
               "flushed by Kindling (kd::set_flush_denormal) and by the tuned peers (torch.set_flush_denormal)";
}

// ---- the machine ---------------------------------------------------------------------------------

/// The CPU's model name with its family and model numbers (/proc/cpuinfo), e.g. "AMD EPYC (family 25
/// model 1)": a virtual machine may name only the brand, and the numbers still tell a Zen 3 (25) from a
/// Zen 5 (26). scripts/run-bench.sh writes the same words into its header.
inline std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string name = "unknown", family = "?", model = "?";
  for (std::string line; std::getline(f, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      if (line.empty() && name != "unknown") break;  // the end of the first processor's block
      continue;
    }
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    key.erase(key.find_last_not_of(" \t") + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "model name") name = value;
    else if (key == "cpu family") family = value;
    else if (key == "model") model = value;
  }
  return name + " (family " + family + " model " + model + ")";
}

/// The vector instruction sets of this CPU that matter to the GEMMs: "avx2,fma,avx512f,avx512_bf16".
inline std::string cpu_isa() {
  std::ifstream f("/proc/cpuinfo");
  std::set<std::string> flags;
  for (std::string line; std::getline(f, line);)
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      for (std::string w; words >> w;) flags.insert(w);
      break;
    }
  std::string out;
  for (const char* want : {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
                           "amx_tile", "amx_bf16"})
    if (flags.count(want)) out += (out.empty() ? "" : ",") + std::string(want);
  return out.empty() ? "none" : out;
}

/// The value of `key=` in a peer's ready line ("" if it has none).
inline std::string ready_value(const std::string& ready_line, const std::string& key) {
  std::istringstream words(ready_line);
  for (std::string w; words >> w;)
    if (w.rfind(key + "=", 0) == 0) return w.substr(key.size() + 1);
  return "";
}

/// Parsed command line: `--quick` runs a few iterations only (the CTest smoke test).
struct Options {
  bool quick = false;
};

inline Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) o.quick = g_quick = true;
    else if (std::strcmp(argv[i], "--describe-peers") == 0) {
      std::printf("%s\n", describe_peers().c_str());
      std::exit(0);
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: %s [--quick] [--describe-peers]\n  --quick           a few iterations only (smoke test; "
                  "ratios are noisy)\n  --describe-peers  print the peers' settings (tuned, as installed) and "
                  "exit\n",
                  argv[0]);
      std::exit(0);
    } else {
      std::fprintf(stderr, "%s: unknown argument '%s' (try --help)\n", argv[0], argv[i]);
      std::exit(2);
    }
  }
  return o;
}

/// What every benchmark runs under. One thread everywhere, for a fair comparison: OpenBLAS here, and
/// any child process (PyTorch) too. Denormals flushed to zero in this thread (kd::set_flush_denormal),
/// as a tuned peer flushes them (peer_settings); each line says so per side (ftz=).
inline void process_settings() {
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("KINDLING_NUM_THREADS", "1", 1);
  openblas_set_num_threads(1);
  kindling::set_flush_denormal(true);
}

/// "1.23 ms" / "456.7 us"
inline std::string fmt_time(double s) {
  char buf[64];
  if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  return buf;
}

/// The end of a BENCH line: what each side spent per unit of work and on what, and the peer's mode.
struct Sides {
  std::string peer_gemm = "";  // the peer's gemm_backends() (its ready line's gemm=), "" for none
  std::string peer_alloc = "";  // PeerSettings::alloc, "" for an in-process peer
  std::string mode = "in-process";  // PeerSettings::mode, or "in-process"
  double units = 1;                 // units of work per repetition (steps, calls)
  std::string unit = "rep";
  double floor_s = 0;               // Kindling's floor per unit (floor.hpp); 0: none printed
  bool kindling_gemm = true;        // print this process's gemm= on the first side
  std::string first_gemm = "";      // ... or this instead (the first side is in the peer)
  // The peer's ftz (its ready line's ftz=); in-process peers share this process's setting. A first side
  // that runs in the peer (first_gemm set) prints the peer's too.
  std::string peer_ftz = peers::flush_denormal_state();
  static Sides peer(const PeerSettings& s, const std::string& ready_line, double units, std::string unit) {
    Sides out{ready_value(ready_line, "gemm"), s.alloc, s.mode, units, std::move(unit)};
    out.peer_ftz = ready_value(ready_line, "ftz");
    return out;
  }
};

inline std::string side_usage(const char* name, const Usage& u, int reps, const Sides& s, const std::string& gemm,
                              const std::string& ftz) {
  char buf[256];
  const double n = reps * s.units;
  if (u.known && n > 0)
    std::snprintf(buf, sizeof buf, " | %s user=%.1f sys=%.1f us/%s faults=%.2f/%s", name, 1e6 * u.user_s / n,
                  1e6 * u.sys_s / n, s.unit.c_str(), u.minflt / n, s.unit.c_str());
  else
    std::snprintf(buf, sizeof buf, " | %s usage=unknown", name);
  std::string out = buf;
  if (!gemm.empty()) out += " gemm=" + gemm;
  if (!ftz.empty()) out += " ftz=" + ftz;
  return out;
}

template <class Paired>
std::string tail(const Paired& p, const Sides& s, const std::string& kindling_name, const std::string& peer_name) {
  std::string out;
  if (s.floor_s > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " floor=%s (%.2f of floor)", fmt_time(s.floor_s).c_str(),
                  p.kindling_s / s.units / s.floor_s);
    out += buf;
  }
  out += side_usage(kindling_name.c_str(), p.kindling_usage, p.reps, s,
                    !s.first_gemm.empty() ? s.first_gemm : s.kindling_gemm ? peers::gemm_backends() : std::string(),
                    !s.first_gemm.empty() ? s.peer_ftz : std::string(peers::flush_denormal_state()));
  out += side_usage(peer_name.c_str(), p.peer_usage, p.reps, s, s.peer_gemm, s.peer_ftz);
  if (!s.peer_alloc.empty()) out += " alloc=" + s.peer_alloc;
  static const std::string cpu = cpu_model();
  return out + " | cpu=\"" + cpu + "\" peer=" + s.mode;
}

/// Prints one BENCH line from an interleaved comparison (peer_process.hpp): the median of the paired
/// ratios, the two medians, and the interquartile range of the ratios as the spread; then `sides`.
template <class Paired>
void report_paired(const char* id, const std::string& what, const Paired& p, const std::string& kindling_name,
                   const std::string& peer_name, const Sides& sides = {}) {
  std::printf("BENCH %s %s: ratio=%.3f (%s %s vs %s %s) spread=[%.3f..%.3f]%s\n", id, what.c_str(), p.ratio,
              kindling_name.c_str(), fmt_time(p.kindling_s).c_str(), peer_name.c_str(), fmt_time(p.peer_s).c_str(),
              p.lo, p.hi, tail(p, sides, kindling_name, peer_name).c_str());
  std::fflush(stdout);
}

/// The same for work counted in units (training steps, samples): rates from the median CPU times of a
/// repetition of `units` units. The ratio is still the median of the paired ratios.
template <class Paired>
void report_rate(const char* id, const std::string& what, const Paired& p, double units, const char* unit,
                 const std::string& kindling_name, const std::string& peer_name, const Sides& sides = {}) {
  std::printf("BENCH %s %s: ratio=%.3f (%s %.0f %s vs %s %.0f %s) spread=[%.3f..%.3f]%s\n", id, what.c_str(),
              p.ratio, kindling_name.c_str(), units / p.kindling_s, unit, peer_name.c_str(), units / p.peer_s, unit,
              p.lo, p.hi, tail(p, sides, kindling_name, peer_name).c_str());
  std::fflush(stdout);
}

/// A peer's name on a line: "libtorch" for the tuned peer, "libtorch-as-installed" for the other (so a
/// reader of either line knows which peer it is without reading to its end).
inline std::string peer_name(const std::string& base, const PeerSettings& s) {
  return s.mode == "tuned" ? base : base + "-as-installed";
}

/// The title of a comparison: as before for the tuned peer; " (peer as installed)" added for the other,
/// so that each title appears once in a run (the book quotes lines by their titles).
inline std::string titled(const std::string& what, const PeerSettings& s) {
  return s.mode == "tuned" ? what : what + " (peer as installed)";
}

// ---- STREAM's triad --------------------------------------------------------------------------------

/// STREAM's triad, c = a + s * b, on n floats (bench/elementwise.cpp and floor.hpp).
inline void triad(float* __restrict c, const float* __restrict a, const float* __restrict b, float s, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] + s * b[i];
}

/// The triad's bandwidth in bytes per second (STREAM's count: 3 x 4 bytes per element) on three arrays
/// that together hold `bytes`: the rate of the cache level (or memory) a working set of that size lives
/// in. The best of several timed passes after a warm-up, as STREAM reports.
inline double triad_rate(double bytes, bool quick) {
  const auto n = std::max<std::int64_t>(1024, static_cast<std::int64_t>(bytes / 12));
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 0.0f);
  volatile float scalar_source = 3.0f;
  const float s = scalar_source;
  // ~40 MB streamed per pass at least, so a pass takes more than a timer tick's worth of microseconds.
  const int inner = static_cast<int>(std::max<double>(1.0, 40e6 / (12.0 * static_cast<double>(n))));
  double best = 1e300;
  for (int pass = 0; pass < (quick ? 3 : 9); ++pass) {
    const double t0 = wall_seconds();
    for (int i = 0; i < inner; ++i) {
      triad(c.data(), a.data(), b.data(), s, n);
      asm volatile("" : : "r"(c.data()) : "memory");
    }
    const double t = wall_seconds() - t0;
    if (pass > 0) best = std::min(best, t);
  }
  return 12.0 * static_cast<double>(n) * inner / best;
}

}  // namespace bench
