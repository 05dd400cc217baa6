#pragma once
// Interleaved timing against a peer that runs in another process (PyTorch in /usr/bin/python3, a
// LibTorch program).
//
// Why interleave: on a shared machine the load changes from second to second. Timing all of
// Kindling's repetitions and then all of the peer's compares two different machines; alternating one
// repetition of each and taking the ratio of each *pair* compares the two under the same load. The
// reported ratio is the median of the paired ratios, with their interquartile range as the spread.
// Both sides time CPU time (of the process: one thread each), which leaves out the time other
// programs held the core. Which side runs first alternates from pair to pair, so neither always
// inherits the caches (or the frequency) the other left behind.
//
// Each side's user and system CPU time and minor page faults are counted too (getrusage here, the
// peer's /proc/<pid>/stat around each request): a peer that spends its time in the kernel faulting in
// pages its allocator returned to the OS is visible on the line, not hidden in a ratio.
//
// The peer protocol (one line each way per request):
//   peer -> "ready"                              after its set-up (imports, data, warm-up)
//   us   -> "run"                                the peer runs one repetition of the work
//   peer -> "cpu=<seconds> wall=<seconds> [key=value ...]"
//   us   -> "quit"
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

/// CPU seconds used by this process so far.
inline double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Monotonic wall-clock seconds (reported for the reader; ratios use CPU time).
inline double wall_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// User and system CPU seconds and minor page faults (a process's, or the difference of two readings).
struct Usage {
  double user_s = 0, sys_s = 0, minflt = 0;
  bool known = false;
  Usage operator-(const Usage& o) const { return {user_s - o.user_s, sys_s - o.sys_s, minflt - o.minflt, known && o.known}; }
  Usage& operator+=(const Usage& o) {
    user_s += o.user_s, sys_s += o.sys_s, minflt += o.minflt;
    known = known && o.known;
    return *this;
  }
};

/// This process's usage so far (all its threads).
inline Usage self_usage() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return {sec(ru.ru_utime), sec(ru.ru_stime), static_cast<double>(ru.ru_minflt), true};
}

/// Another process's usage so far, from /proc/<pid>/stat (minflt, utime and stime: fields 10, 14 and 15,
/// the times in clock ticks; per repetition they are coarse, summed over the repetitions they are not).
inline Usage process_usage(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return {};
  char buf[1024] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const std::string line(buf, n);
  const auto close = line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(line.substr(close + 2));
  std::vector<std::string> fields;  // fields[0] is field 3 (state)
  for (std::string w; rest >> w && fields.size() < 14;) fields.push_back(w);
  if (fields.size() < 13) return {};
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  return {std::stod(fields[11]) / tick, std::stod(fields[12]) / tick, std::stod(fields[7]), true};
}

/// One repetition's result, as a peer reports it.
struct PeerRep {
  double cpu_s = 0, wall_s = 0;
  Usage usage;                               // measured around the request (PeerProcess::run)
  std::map<std::string, std::string> extra;  // anything else the peer printed as key=value
};

/// A peer process talking the protocol above over its stdin/stdout.
class PeerProcess {
 public:
  /// Starts `argv` (argv[0] is the program) with `env` added to its environment (the allocator
  /// settings of bench_util.hpp's PeerSettings); `stdin_text` is written first (inputs the peer reads
  /// before it prints "ready"). Returns false (and says why on stderr) if the peer cannot start.
  bool start(const std::vector<std::string>& argv, const std::string& stdin_text = "",
             const std::vector<std::pair<std::string, std::string>>& env = {}) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return false;
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[1]);
      close(from_child[0]);
      for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::fprintf(stderr, "peer: cannot run %s\n", args[0]);
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_ = fdopen(to_child[1], "w");
    out_ = fdopen(from_child[0], "r");
    if (!stdin_text.empty()) {
      std::fputs(stdin_text.c_str(), in_);
      std::fputc('\n', in_);
      std::fflush(in_);
    }
    const std::string first = read_line();
    if (first.rfind("ready", 0) != 0) {
      std::fprintf(stderr, "peer %s did not get ready (said: %s)\n", argv[0].c_str(), first.c_str());
      stop();
      return false;
    }
    ready_line_ = first;
    return true;
  }

  /// Runs one repetition in the peer ("run", or "run <what>" when the peer does several kinds of
  /// work); nullopt if it failed.
  std::optional<PeerRep> run(const std::string& what = "") {
    if (!in_) return std::nullopt;
    const std::string request = what.empty() ? "run\n" : "run " + what + "\n";
    const Usage before = process_usage(pid_);
    std::fputs(request.c_str(), in_);
    std::fflush(in_);
    const std::string line = read_line();
    PeerRep rep;
    rep.usage = process_usage(pid_) - before;
    std::istringstream words(line);
    std::string word;
    bool have_cpu = false;
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
      if (key == "cpu") rep.cpu_s = std::stod(value), have_cpu = true;
      else if (key == "wall") rep.wall_s = std::stod(value);
      else rep.extra[key] = value;
    }
    if (!have_cpu) {
      std::fprintf(stderr, "peer: unexpected answer '%s'\n", line.c_str());
      return std::nullopt;
    }
    return rep;
  }

  const std::string& ready_line() const { return ready_line_; }
  pid_t pid() const { return pid_; }

  void stop() {
    if (in_) {
      std::fputs("quit\n", in_);
      std::fclose(in_);
      in_ = nullptr;
    }
    if (out_) {
      std::fclose(out_);
      out_ = nullptr;
    }
    if (pid_ > 0) {
      int status = 0;
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }
  ~PeerProcess() { stop(); }

 private:
  std::string read_line() {
    std::string line;
    int c;
    while (out_ && (c = std::fgetc(out_)) != EOF && c != '\n') line.push_back(static_cast<char>(c));
    return line;
  }
  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
  std::string ready_line_;
};

/// What an interleaved comparison found.
struct Paired {
  double ratio = 0;            // median of peer_i / kindling_i (bigger is better for Kindling)
  double lo = 0, hi = 0;       // interquartile range of those ratios
  double kindling_s = 0;       // median CPU seconds of a Kindling repetition
  double peer_s = 0;           // median CPU seconds of a peer repetition
  double kindling_wall_s = 0;  // median wall-clock seconds (for the reader; not used in the ratio)
  double peer_wall_s = 0;
  double wall_ratio = 0, wall_lo = 0, wall_hi = 0;  // the same from wall-clock time (work in child processes)
  int reps = 0;
  Usage kindling_usage, peer_usage;  // user, system and page faults summed over the timed repetitions
};

// Not inlined: inlined into a caller's loop, GCC 12 reports a false -Wfree-nonheap-object on the copy.
[[gnu::noinline]] inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(pos);
  const double frac = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - frac) + v[i + 1] * frac : v[i];
}

/// Alternates `reps` repetitions of `kindling()` (timed here) and of `peer()` (which times itself and
/// returns its PeerRep, nullopt on failure), after one warm-up of each: the one method every benchmark
/// uses. The same count on both sides; each ratio compares two neighbouring repetitions.
template <class F, class P>
std::optional<Paired> interleave_with(F&& kindling, P&& peer, int reps) {
  kindling();
  if (!peer()) return std::nullopt;
  std::vector<double> k_cpu, p_cpu, k_wall, p_wall, ratios, wall_ratios;
  Usage k_use{0, 0, 0, true}, p_use{0, 0, 0, true};
  for (int r = 0; r < reps; ++r) {
    double kc = 0, kw = 0;
    auto time_kindling = [&] {
      const Usage u0 = self_usage();
      const double c0 = cpu_seconds(), w0 = wall_seconds();
      kindling();
      kc = cpu_seconds() - c0, kw = wall_seconds() - w0;
      k_use += self_usage() - u0;
    };
    std::optional<PeerRep> p;
    if (r % 2 == 0) {  // alternate which side goes first
      time_kindling();
      p = peer();
    } else {
      p = peer();
      if (p) time_kindling();
    }
    if (!p) return std::nullopt;
    p_use += p->usage;
    k_cpu.push_back(kc);
    k_wall.push_back(kw);
    p_cpu.push_back(p->cpu_s);
    p_wall.push_back(p->wall_s);
    ratios.push_back(p->cpu_s / kc);
    wall_ratios.push_back(p->wall_s / kw);
  }
  Paired out;
  out.reps = reps;
  out.kindling_usage = k_use;
  out.peer_usage = p_use;
  out.wall_ratio = quantile(wall_ratios, 0.5);
  out.wall_lo = quantile(wall_ratios, 0.25);
  out.wall_hi = quantile(wall_ratios, 0.75);
  out.ratio = quantile(ratios, 0.5);
  out.lo = quantile(ratios, 0.25);
  out.hi = quantile(ratios, 0.75);
  out.kindling_s = quantile(k_cpu, 0.5);
  out.peer_s = quantile(p_cpu, 0.5);
  out.kindling_wall_s = quantile(k_wall, 0.5);
  out.peer_wall_s = quantile(p_wall, 0.5);
  return out;
}

/// The same against a peer process (one "run" request per repetition).
template <class F>
std::optional<Paired> interleave(F&& kindling, PeerProcess& peer, int reps, const std::string& what = "") {
  return interleave_with(kindling, [&] { return peer.run(what); }, reps);
}

/// The same against a peer in this process (raw BLAS, a plain loop), timed like Kindling's side.
template <class F, class G>
std::optional<Paired> interleave_local(F&& kindling, G&& peer, int reps) {
  return interleave_with(
      kindling,
      [&]() -> std::optional<PeerRep> {
        const Usage u0 = self_usage();
        const double c0 = cpu_seconds(), w0 = wall_seconds();
        peer();
        PeerRep rep;
        rep.cpu_s = cpu_seconds() - c0;
        rep.wall_s = wall_seconds() - w0;
        rep.usage = self_usage() - u0;
        return rep;
      },
      reps);
}

}  // namespace bench
