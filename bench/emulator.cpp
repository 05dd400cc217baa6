// E1 — chapter 8's kernel emulator at the speed a learner waits on it.
//
// Two lines:
//   BENCH E1 emulator thread-switches/s   the emulator's own switch rate: a kernel whose 256 threads
//        per block each wait at 64 barriers, so nearly all its time is handing the CPU from one GPU
//        thread to the next (a thread is resumed once to start and once after each barrier; the
//        launch record's `resumes` counts them and must match). Peer: glibc's swapcontext, the switch
//        the emulator used before Boost.Context, doing the same number of bare round trips (into a
//        context and back) in this process -- the fastest an emulator built on it could switch, since
//        every swapcontext also saves and restores the signal mask with a system call.
//        ratio = swapcontext time / emulator time for the same number of switches.
//   BENCH E1 ch08 programs total seconds  every chapter-8 program the book runs (not the `skip-run`
//        ones), each as a child process, CPU time (user + system, from wait4) summed over them: what a
//        learner waits for in `make run`, without the time other programs held the cores. No peer:
//        the figure itself is the goal (issue: each program >= 5x faster than with swapcontext).
//   BENCH E1 emulator checks on vs off    what the emulator's checks cost: chapter 8's tiled matmul (shared
//        memory and barriers) and a naive one (global memory only), each compiled twice from one source --
//        with the emulator's Span and SharedArray (every index bounds-checked, every shared access through
//        the race detector, every global access counted for the launch record) and with bare pointer-and-
//        array stand-ins that check nothing. The scheduler, the barriers and the fibers are the same on both
//        sides, so the difference is the checks alone; it is also printed per checked access (the checks'
//        cost is meant to be proportional to the accesses, a few nanoseconds each).
//        ratio = unchecked time / checked time (the share of the speed the checks leave).
// Timing: the usual method (peer_process.hpp) for the switches and the checks; for the programs, the median over
// repetitions of each program's CPU time.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <kindling/cuda/kernel.hpp>

#include "bench_util.hpp"

namespace kc = kindling::cuda;
using kc::emulated::Span;

namespace {

constexpr int kBarriers = 64;
constexpr unsigned kThreads = 256;

// Each thread waits at kBarriers barriers and writes one value (so the work is not optimised away).
__global__ void barriers(Span<float> out, int rounds) {
  float v = static_cast<float>(threadIdx.x);
  for (int i = 0; i < rounds; ++i) {
    __syncthreads();
    v += 1.0f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// ---- the peer: bare swapcontext round trips ---------------------------------------------------------
ucontext_t g_main_ctx, g_peer_ctx;
std::uint64_t g_peer_trips = 0;

void peer_body() {
  for (;;) {
    ++g_peer_trips;
    swapcontext(&g_peer_ctx, &g_main_ctx);
  }
}

void switch_rate(const bench::Options& opt) {
  const unsigned blocks = opt.quick ? 2 : 4;
  std::vector<float> out(std::size_t{blocks} * kThreads);
  const std::uint64_t per_launch = std::uint64_t{blocks} * kThreads * (kBarriers + 1);
  auto launch = [&] {
    KD_LAUNCH(barriers, dim3(blocks), dim3(kThreads), Span<float>(out.data(), std::int64_t(out.size()), "out"),
              kBarriers);
  };
  // The work is what we say it is: every thread ran every round, and was resumed once per barrier + 1.
  kc::emu::clear_launch_log();
  launch();
  const kc::emu::LaunchRecord rec = kc::emu::launch_log().back();
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i] != static_cast<float>(i % kThreads + kBarriers)) {
      std::fprintf(stderr, "emulator bench: thread %zu computed %g\n", i, static_cast<double>(out[i]));
      std::exit(1);
    }
  if (rec.resumes != per_launch || rec.barriers != std::uint64_t{blocks} * kThreads * kBarriers) {
    std::fprintf(stderr, "emulator bench: %llu resumes and %llu barriers, expected %llu and %llu\n",
                 static_cast<unsigned long long>(rec.resumes), static_cast<unsigned long long>(rec.barriers),
                 static_cast<unsigned long long>(per_launch),
                 static_cast<unsigned long long>(std::uint64_t{blocks} * kThreads * kBarriers));
    std::exit(1);
  }

  std::vector<char> stack(256 * 1024);
  getcontext(&g_peer_ctx);
  g_peer_ctx.uc_stack.ss_sp = stack.data();
  g_peer_ctx.uc_stack.ss_size = stack.size();
  g_peer_ctx.uc_link = nullptr;
  makecontext(&g_peer_ctx, peer_body, 0);
  auto trips = [&](std::uint64_t n) {
    const std::uint64_t before = g_peer_trips;
    for (std::uint64_t i = 0; i < n; ++i) swapcontext(&g_main_ctx, &g_peer_ctx);
    if (g_peer_trips - before != n) {
      std::fprintf(stderr, "emulator bench: the swapcontext peer made %llu trips, not %llu\n",
                   static_cast<unsigned long long>(g_peer_trips - before), static_cast<unsigned long long>(n));
      std::exit(1);
    }
  };

  // ~330,000 switches per repetition: 15 ms of the emulator, 0.2 s of swapcontext (its system calls).
  const int launches = opt.quick ? 1 : 5;
  const int reps = opt.quick ? 3 : 15;
  const auto paired = bench::interleave_local([&] { for (int i = 0; i < launches; ++i) launch(); },
                                              [&] { trips(per_launch * launches); }, reps);
  const double switches = static_cast<double>(per_launch) * launches;
  std::printf("BENCH E1 emulator thread-switches/s: ratio=%.3f (emulator %.1f M/s vs swapcontext %.1f M/s; "
              "%u threads x %d barriers per block, CPU time) spread=[%.3f..%.3f]\n",
              paired->ratio, switches / paired->kindling_s / 1e6, switches / paired->peer_s / 1e6, kThreads,
              kBarriers, paired->lo, paired->hi);
  std::fflush(stdout);
}

// ---- the checks' cost -------------------------------------------------------------------------------
// Bare stand-ins for Span and SharedArray: the same interface, no bounds check, no race detector, no
// counting. Only this benchmark uses them; a kernel a learner writes always gets the checked ones.
template <class T>
class BareSpan {
 public:
  BareSpan(T* data, std::int64_t /*size*/, const char* /*name*/) : data_(data) {}
  T& operator[](std::int64_t i) const { return data_[i]; }

 private:
  T* data_;
};
template <class T, std::size_t Rows, std::size_t Cols>
class BareShared {
 public:
  T& operator()(int i, int j) { return data_[static_cast<std::size_t>(i) * Cols + static_cast<std::size_t>(j)]; }

 private:
  T data_[Rows * Cols];
};

struct Checked {
  template <class T>
  using span = kc::emulated::Span<T>;
  template <class T, std::size_t R, std::size_t C>
  using shared = kc::emulated::SharedArray<T, R, C>;
};
struct Unchecked {
  template <class T>
  using span = BareSpan<T>;
  template <class T, std::size_t R, std::size_t C>
  using shared = BareShared<T, R, C>;
};

constexpr int kTile = 16;

// Chapter 8's tiled matmul (ex3's reference, solutions/ch08/ex3_matmul_tiled.cpp) with its array types
// as a parameter. a: [M, K], b: [K, N], c: [M, N]; one 16x16 block per 16x16 tile of c.
template <class Arrays>
__global__ void matmul_tiled(typename Arrays::template span<const float> a,
                             typename Arrays::template span<const float> b,
                             typename Arrays::template span<float> c, int M, int N, int K) {
  __shared__ typename Arrays::template shared<float, kTile, kTile> as;
  __shared__ typename Arrays::template shared<float, kTile, kTile> bs;
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    as(ty, tx) = (row < M && k0 + tx < K) ? a[std::int64_t{row} * K + k0 + tx] : 0.0f;
    bs(ty, tx) = (k0 + ty < K && col < N) ? b[std::int64_t{k0 + ty} * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += as(ty, k) * bs(k, tx);
    __syncthreads();
  }
  if (row < M && col < N) c[std::int64_t{row} * N + col] = acc;
}

// The naive matmul (v1): one thread per element of c, every operand read from global memory.
template <class Arrays>
__global__ void matmul_naive(typename Arrays::template span<const float> a,
                             typename Arrays::template span<const float> b,
                             typename Arrays::template span<float> c, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[std::int64_t{row} * K + k] * b[std::int64_t{k} * N + col];
  c[std::int64_t{row} * N + col] = acc;
}

template <class Arrays>
void launch_matmul(bool tiled, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c,
                   int n) {
  using In = typename Arrays::template span<const float>;
  using Out = typename Arrays::template span<float>;
  const auto nn = static_cast<std::int64_t>(n) * n;
  const unsigned tiles = static_cast<unsigned>((n + kTile - 1) / kTile);
  if (tiled)
    KD_LAUNCH(matmul_tiled<Arrays>, dim3(tiles, tiles), dim3(kTile, kTile), In(a.data(), nn, "a"),
              In(b.data(), nn, "b"), Out(c.data(), nn, "c"), n, n, n);
  else
    KD_LAUNCH(matmul_naive<Arrays>, dim3(tiles, tiles), dim3(kTile, kTile), In(a.data(), nn, "a"),
              In(b.data(), nn, "b"), Out(c.data(), nn, "c"), n, n, n);
}

void checks_cost(const bench::Options& opt, bool tiled) {
  const int n = opt.quick ? 64 : 128;
  std::vector<float> a(static_cast<std::size_t>(n) * n), b(a.size()), c_checked(a.size()), c_bare(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 7) - 3.0f;
    b[i] = static_cast<float>(i % 5) - 2.0f;
  }
  // Both sides compute the same product (the small integers make it exact), and the checked side's
  // record says how many accesses it checked.
  kc::emu::clear_launch_log();
  launch_matmul<Checked>(tiled, a, b, c_checked, n);
  const kc::emu::LaunchRecord rec = kc::emu::launch_log().back();
  launch_matmul<Unchecked>(tiled, a, b, c_bare, n);
  if (rec.failed || c_checked != c_bare) {
    std::fprintf(stderr, "emulator bench: the checked and unchecked %s matmuls disagree\n", tiled ? "tiled" : "naive");
    std::exit(1);
  }
  const auto nn = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
  // Shared accesses of the tiled kernel: per thread and tile step, 2 writes and 2 x 16 reads.
  const std::uint64_t shared = tiled ? nn * static_cast<std::uint64_t>((n + kTile - 1) / kTile) * (2 + 2 * kTile) : 0;
  const std::uint64_t global = rec.global_reads + rec.global_accesses;
  const int reps = opt.quick ? 3 : 15;
  const auto paired = bench::interleave_local([&] { launch_matmul<Checked>(tiled, a, b, c_checked, n); },
                                              [&] { launch_matmul<Unchecked>(tiled, a, b, c_bare, n); }, reps);
  const double extra_ns = (paired->kindling_s - paired->peer_s) * 1e9 / static_cast<double>(shared + global);
  std::printf("BENCH E1 emulator checks on vs off (%s matmul %dx%dx%d): ratio=%.3f (checked %.2f ms vs unchecked "
              "%.2f ms; %.1f M shared + %.1f M global accesses checked, %.1f ns each) spread=[%.3f..%.3f]\n",
              tiled ? "tiled" : "naive", n, n, n, paired->ratio, paired->kindling_s * 1e3, paired->peer_s * 1e3,
              static_cast<double>(shared) / 1e6, static_cast<double>(global) / 1e6, extra_ns, paired->lo,
              paired->hi);
  std::fflush(stdout);
}

// ---- chapter 8's programs -----------------------------------------------------------------------------
struct Program {
  std::string path;
  std::vector<std::string> args;
  std::string name() const { return std::filesystem::path(path).filename().string(); }
};

// The chapter programs' list (chapters/CMakeLists.txt writes "target<TAB>source" lines, binaries next to
// it): chapter 8's, with the `// book:` directives of their sources read as scripts/run-chapters.sh reads
// them (run-args; skip-run leaves a program out).
std::string directive(const std::string& source, const std::string& name, bool& found) {
  std::ifstream in(source);
  std::string line;
  found = false;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string w;
    if (!(words >> w) || w != "//" || !(words >> w) || w != "book:" || !(words >> w) || w != name) continue;
    found = true;
    std::string rest;
    std::getline(words, rest);
    return rest;
  }
  return "";
}

std::vector<Program> ch08_programs() {
  std::vector<Program> out;
  const std::filesystem::path manifest(KINDLING_CHAPTER_PROGRAMS);
  std::ifstream in(manifest);
  std::string line;
  while (std::getline(in, line)) {
    const auto tab = line.find('\t');
    if (line.rfind("ch08_", 0) != 0 || tab == std::string::npos) continue;
    const std::string target = line.substr(0, tab), source = line.substr(tab + 1);
    bool skip = false, has_args = false;
    directive(source, "skip-run", skip);
    if (skip) continue;
    Program p;
    p.path = (manifest.parent_path() / target).string();
    std::istringstream words(directive(source, "run-args", has_args));
    std::string w;
    while (words >> w) p.args.push_back(w);
    out.push_back(p);
  }
  return out;
}

struct RunResult {
  bool ok = false;
  double cpu_s = 0, wall_s = 0;
};

// Runs one program in `dir` (its working directory, as the book's runs have one), output to a log there.
RunResult run_program(const Program& p, const std::string& dir) {
  RunResult r;
  const std::string log = dir + "/" + p.name() + ".log";
  const double w0 = bench::wall_seconds();
  const pid_t pid = fork();
  if (pid < 0) return r;
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) _exit(126);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv{const_cast<char*>(p.path.c_str())};
    for (const auto& a : p.args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (wait4(pid, &status, 0, &ru) != pid) return r;
  r.wall_s = bench::wall_seconds() - w0;
  r.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!r.ok) {
    std::fprintf(stderr, "emulator bench: %s failed (status %d); its output:\n", p.name().c_str(), status);
    std::ifstream in(log);
    std::fprintf(stderr, "%s\n", std::string(std::istreambuf_iterator<char>(in), {}).c_str());
  }
  return r;
}

bool programs_total(const bench::Options& opt) {
  std::vector<Program> programs = ch08_programs();
  if (programs.empty()) {
    std::printf("BENCH E1 ch08 programs total seconds: skipped (no chapter-8 programs in this build)\n");
    return true;
  }
  const std::size_t all = programs.size();
  if (opt.quick) {  // the smoke test: the quickest two (the book's run checks them all)
    std::erase_if(programs, [](const Program& p) {
      return p.name() != "ch08_kernels" && p.name() != "ch08_emulator_catches";
    });
  }
  char tmpl[] = "/tmp/kindling-bench-e1-XXXXXX";
  const char* dir = mkdtemp(tmpl);
  if (!dir) {
    std::perror("emulator bench: mkdtemp");
    return false;
  }
  const int reps = opt.quick ? 1 : 3;
  std::vector<std::vector<double>> cpu(programs.size()), wall(programs.size());
  bool ok = true;
  for (int r = 0; r < reps && ok; ++r)
    for (std::size_t i = 0; i < programs.size() && ok; ++i) {
      const RunResult res = run_program(programs[i], dir);
      ok = res.ok;
      cpu[i].push_back(res.cpu_s);
      wall[i].push_back(res.wall_s);
    }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!ok) return false;
  double total_cpu = 0, total_wall = 0;
  std::string each;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const double c = bench::quantile(cpu[i], 0.5);
    total_cpu += c;
    total_wall += bench::quantile(wall[i], 0.5);
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s%s %.2f", i ? ", " : "", programs[i].name().c_str(), c);
    each += buf;
  }
  std::printf("BENCH E1 ch08 programs total seconds: %.2f s CPU, %.2f s wall (%zu of %zu programs, median of %d "
              "runs: %s)\n",
              total_cpu, total_wall, programs.size(), all, reps, each.c_str());
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  switch_rate(opt);
  checks_cost(opt, true);
  checks_cost(opt, false);
  return programs_total(opt) ? 0 : 1;
}
