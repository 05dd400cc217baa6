// P1: the seed's SimpleNet (784-128-10, ReLU), Adam lr 1e-3, CrossEntropyLoss, batches of 32 taken in
// order from Fashion-MNIST in memory, 1 thread: training steps per second of Kindling vs LibTorch 1.13
// (bench/peers/p1_libtorch.cpp) and PyTorch 1.13 (bench/peers/p1_pytorch.py), on identical work in the
// same run; the same with both cores, each framework at its best thread count; and the resident memory
// of Kindling vs LibTorch (M1). Every comparison runs against the tuned peer, then against the peer as
// installed (bench_util.hpp: PeerSettings); every 1-thread line carries the step's floor (floor.hpp).
//
// Every side does a warm-up, then repetitions of `steps` steps of zero_grad -> forward -> loss ->
// backward -> step -> loss.item(), interleaved with the peer's (peer_process.hpp): CPU time, the median
// of the paired ratios, the same count on both sides (wall-clock time for the two-core line, where CPU
// time would count the second core's work against the framework that uses it).
//
// M1 runs each framework again in a fresh process (this program with --m1-child, the LibTorch peer
// with P1_DATA=u8) that holds the images as uint8, as a Dataset does, and converts each batch to
// float as it is taken: the same data, loaded the same way, so the peaks compare the frameworks. It
// reports the peak (VmHWM), and apart the anonymous memory (RssAnon: heap, tensors, caches) and the
// file-backed memory (RssFile: mostly the shared libraries' code), and how much the anonymous memory
// grew while training (from the end of the warm-up to the end of the timed steps).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <kindling/train.hpp>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "bench_util.hpp"
#include "floor.hpp"
#include "peers/proc_status.hpp"

#ifndef KINDLING_P1_PEER
#define KINDLING_P1_PEER ""
#endif
#ifndef KINDLING_BENCH_PEERS
#define KINDLING_BENCH_PEERS ""
#endif
#ifndef KINDLING_PYTHON
#define KINDLING_PYTHON "/usr/bin/python3"
#endif

namespace kd = kindling;

namespace {

struct SimpleNet : kd::nn::Module {
  kd::nn::Linear fc1{784, 128};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }
};

bool exists(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0;
}

// The peak resident set of this process's memory (VmHWM), in kB. Not getrusage's ru_maxrss: that
// survives fork and execve, so a child started by a 200 MB parent would report the parent's peak.
long self_peak_rss_kb() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  long kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  std::fclose(f);
  return kb;
}

/// SimpleNet's training loop over batches of 32 taken in order; `batch(b)` gives batch b's inputs.
template <class Batch>
struct Trainer {
  Batch batch;
  kd::Tensor Y;  // [n] int64 labels
  std::int64_t batches;
  SimpleNet model;
  kd::optim::Adam optimizer{model.parameters(), {.lr = 1e-3}};
  kd::nn::CrossEntropyLoss criterion;
  std::int64_t cursor = 0;
  double last = 0;

  Trainer(Batch b, kd::Tensor labels) : batch(std::move(b)), Y(std::move(labels)), batches(Y.size(0) / 32) {}
  void run(int count) {
    for (int s = 0; s < count; ++s, ++cursor) {
      const std::int64_t b = cursor % batches;
      const kd::Tensor inputs = batch(b);
      const kd::Tensor targets = Y.slice(0, b * 32, (b + 1) * 32);
      optimizer.zero_grad();
      kd::Tensor loss = criterion(model(inputs), targets);
      loss.backward();
      optimizer.step();
      last = loss.item<double>();
    }
  }
};

/// M1's Kindling side, in a fresh process, talking the peer protocol (peer_process.hpp): the
/// images stay uint8 [60000, 28, 28] inside the dataset; each batch is converted when it is taken.
int m1_child(int steps, int warmup) {
  bench::process_settings();
  const long lib_rss = self_peak_rss_kb();
  kd::manual_seed(0);
  kd::data::FashionMNIST train(kd::data::Split::Train);
  const kd::Tensor images = train.data();  // uint8, shared with the dataset (no copy)
  const long data_rss = self_peak_rss_kb();
  auto batch = [&](std::int64_t b) {
    kd::Tensor x = images.slice(0, b * 32, (b + 1) * 32).to(kd::kFloat32).view({-1, 784});
    x.div_(255.0);
    return x;
  };
  Trainer<decltype(batch)> t(batch, train.targets());
  t.run(warmup);
  std::printf("ready data_rss_kb=%ld lib_rss_kb=%ld anon_kb=%ld file_kb=%ld\n", data_rss, lib_rss,
              peers::proc_status_kb("RssAnon"), peers::proc_status_kb("RssFile"));
  std::fflush(stdout);
  char line[64];
  while (std::fgets(line, sizeof line, stdin) && std::string(line) == "run\n") {
    const double c0 = bench::cpu_seconds(), w0 = bench::wall_seconds();
    t.run(steps);
    std::printf("cpu=%.9g wall=%.9g loss=%.9g rss_kb=%ld anon_kb=%ld file_kb=%ld\n", bench::cpu_seconds() - c0,
                bench::wall_seconds() - w0, t.last, self_peak_rss_kb(), peers::proc_status_kb("RssAnon"),
                peers::proc_status_kb("RssFile"));
    std::fflush(stdout);
  }
  return 0;
}

/// Sets an environment variable for the child processes started while this object lives.
struct ScopedEnv {
  std::string name, old;
  bool had;
  ScopedEnv(const char* n, const std::string& value) : name(n) {
    const char* v = std::getenv(n);
    had = v != nullptr;
    if (had) old = v;
    setenv(n, value.c_str(), 1);
  }
  ~ScopedEnv() { had ? setenv(name.c_str(), old.c_str(), 1) : unsetenv(name.c_str()); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--m1-child") return m1_child(std::atoi(argv[2]), std::atoi(argv[3]));
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  const int steps = opt.quick ? 20 : 300, warmup = opt.quick ? 20 : 150, reps = opt.quick ? 3 : 21;

  // Kindling's side, set up exactly like the peers: all images as float [60000, 784] in [0, 1].
  kd::manual_seed(0);
  kd::data::FashionMNIST train(kd::data::Split::Train);
  kd::Tensor X = train.data().to(kd::kFloat32).view({-1, 784});
  X.div_(255.0);  // in place: no second 188 MB copy at the peak
  const long data_rss = self_peak_rss_kb();
  auto batch = [&X](std::int64_t b) { return X.slice(0, b * 32, (b + 1) * 32); };
  Trainer<decltype(batch)> trainer(batch, train.targets());
  auto run = [&](int count) { trainer.run(count); };
  run(warmup);  // like the peers

  // The floor of this step (floor.hpp), measured now, on this CPU.
  const bench::StepModel model = bench::simplenet_step(32, false);
  const bench::Floor floor = bench::measure_floor(model, opt.quick);

  const std::string libtorch = KINDLING_P1_PEER;
  const std::string python_peer = std::string(KINDLING_BENCH_PEERS) + "/p1_pytorch.py";
  const std::vector<std::string> args = {std::to_string(steps), std::to_string(warmup)};
  const bool have_libtorch = exists(libtorch);
  const bool have_python = exists(python_peer) && exists(KINDLING_PYTHON);
  if (!have_libtorch) {
    std::fprintf(stderr, "training: LibTorch peer not built (%s); `make bench` builds it (target bench_peers)\n",
                 libtorch.empty() ? "LibTorch was not found at configure time" : libtorch.c_str());
  }
  bool agree = true;
  // The peers start from other initial weights (another generator) on the same batches: after the same
  // number of steps the losses agree loosely.
  auto check = [&](const char* name, double ours, const bench::PeerRep& rep) {
    const double theirs = std::stod(rep.extra.at("loss"));
    if (!std::isfinite(ours) || std::abs(ours - theirs) > 0.75) {
      std::fprintf(stderr, "training: after the same steps Kindling's loss is %.4f, %s's %.4f\n", ours, name, theirs);
      agree = false;
    }
  };
  long lt_rss = 0, lt_data_rss = 0;
  auto timed = [&](auto&& kindling, bench::PeerProcess& peer, const char* name, long* rss, int count) {
    bench::PeerRep final_rep;
    auto paired = bench::interleave_with(
        kindling,
        [&] {
          auto rep = peer.run();
          if (rep) final_rep = *rep;
          return rep;
        },
        count);
    if (paired) {
      check(name, trainer.last, final_rep);
      if (rss) *rss = std::stol(final_rep.extra.at("rss_kb"));
    }
    return paired;
  };
  bool floor_printed = false;
  for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
    const bool tuned = ps.mode == "tuned";
    if (have_libtorch) {
      bench::PeerProcess lt;
      if (!lt.start({libtorch, args[0], args[1]}, "", ps.env)) return 1;
      if (tuned) std::sscanf(lt.ready_line().c_str(), "ready data_rss_kb=%ld", &lt_data_rss);
      const auto p = timed([&] { run(steps); }, lt, "LibTorch", tuned ? &lt_rss : nullptr, reps);
      if (!p) return 1;
      auto sides = bench::Sides::peer(ps, lt.ready_line(), steps, "step");
      sides.floor_s = floor.total();
      bench::report_rate("P1", bench::titled("SimpleNet train steps/s (1 thread)", ps), *p, steps, "steps/s",
                         "kindling", bench::peer_name("libtorch", ps), sides);
      if (!floor_printed) bench::print_floor("P1", floor, model.gemms.size()), floor_printed = true;
    }
    if (have_python) {
      bench::PeerProcess py;
      if (!py.start({KINDLING_PYTHON, python_peer, args[0], args[1]}, "", ps.env)) return 1;
      const auto p = timed([&] { run(steps); }, py, "PyTorch", nullptr, reps);
      if (!p) return 1;
      auto sides = bench::Sides::peer(ps, py.ready_line(), steps, "step");
      sides.floor_s = floor.total();
      bench::report_rate("P1", bench::titled("SimpleNet train steps/s vs PyTorch (1 thread)", ps), *p, steps,
                         "steps/s", "kindling", bench::peer_name("pytorch-1.13", ps), sides);
      if (!floor_printed) bench::print_floor("P1", floor, model.gemms.size()), floor_printed = true;
    }
  }

  // P1 on both cores: each framework at its best thread count (1 or 2, chosen by a short wall-clock
  // trial), then the same interleaved comparison in wall-clock time.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (have_libtorch && cores >= 2) {
    for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
      int best_kd = 1, best_lt = 1;
      double best_kd_s = 1e300, best_lt_s = 1e300;
      std::map<int, std::unique_ptr<bench::PeerProcess>> peers;
      for (int t : {1, 2}) {
        kd::set_num_threads(t);
        const double w0 = bench::wall_seconds();
        for (int r = 0; r < 3; ++r) run(steps);
        if (const double s = bench::wall_seconds() - w0; s < best_kd_s) best_kd_s = s, best_kd = t;
        ScopedEnv threads("P1_THREADS", std::to_string(t)), omp("OMP_NUM_THREADS", std::to_string(t));
        auto peer = std::make_unique<bench::PeerProcess>();
        if (!peer->start({libtorch, args[0], args[1]}, "", ps.env)) return 1;
        double s = 0;
        for (int r = 0; r < 3; ++r) {
          const auto rep = peer->run();
          if (!rep) return 1;
          s += rep->wall_s;
        }
        if (s < best_lt_s) best_lt_s = s, best_lt = t;
        peers[t] = std::move(peer);
      }
      kd::set_num_threads(best_kd);
      auto p = timed([&] { run(steps); }, *peers[best_lt], "LibTorch", nullptr, opt.quick ? 3 : 11);
      if (!p) return 1;
      char what[160], who_kd[64], who_lt[64];
      std::snprintf(what, sizeof what, "SimpleNet train steps/s (%d cores, each at its best thread count)", cores);
      std::snprintf(who_kd, sizeof who_kd, "kindling (%d thread%s)", best_kd, best_kd == 1 ? "" : "s");
      std::snprintf(who_lt, sizeof who_lt, "%s (%d thread%s)", bench::peer_name("libtorch", ps).c_str(), best_lt,
                    best_lt == 1 ? "" : "s");
      // Wall-clock time here: CPU time would count the second core's work against the framework using it.
      p->ratio = p->wall_ratio, p->lo = p->wall_lo, p->hi = p->wall_hi;
      p->kindling_s = p->kindling_wall_s, p->peer_s = p->peer_wall_s;
      bench::report_rate("P1", bench::titled(what, ps), *p, steps, "steps/s", who_kd, who_lt,
                         bench::Sides::peer(ps, peers[best_lt]->ready_line(), steps, "step"));
      kd::set_num_threads(1);
    }
  }

  // M1: resident memory, each framework in a fresh process holding the uint8 images and converting
  // each batch as it is taken (see the top of this file); the peer tuned, then as installed.
  if (have_libtorch) {
    const std::string self = std::string("/proc/self/exe");
    char exe[4096] = {};
    const ssize_t len = readlink(self.c_str(), exe, sizeof exe - 1);
    if (len <= 0) return 1;
    ScopedEnv data_mode("P1_DATA", "u8");
    for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
      bench::PeerProcess kd_m1, lt_m1;
      if (!kd_m1.start({exe, "--m1-child", args[0], args[1]}) || !lt_m1.start({libtorch, args[0], args[1]}, "", ps.env))
        return 1;
      auto ready = [](const bench::PeerProcess& p, const char* key) {
        const std::string v = bench::ready_value(p.ready_line(), key);
        return v.empty() ? 0.0 : std::stod(v);
      };
      bench::PeerRep kd_rep, lt_rep;
      const int m1_reps = opt.quick ? 1 : 3;
      for (int r = 0; r < m1_reps; ++r) {
        // Alternate which goes first, as everywhere (here it only matters to the machine's load).
        std::optional<bench::PeerRep> a, b;
        if (r % 2 == 0) a = kd_m1.run(), b = lt_m1.run();
        else b = lt_m1.run(), a = kd_m1.run();
        if (!a || !b) return 1;
        kd_rep = *a, lt_rep = *b;
      }
      check("LibTorch (M1)", std::stod(kd_rep.extra.at("loss")), lt_rep);
      auto at_end = [](const bench::PeerRep& r, const char* key) { return std::stod(r.extra.at(key)); };
      const double kd_peak = at_end(kd_rep, "rss_kb"), lt_peak = at_end(lt_rep, "rss_kb");
      const std::string lt_name = bench::peer_name("libtorch", ps);
      static const std::string cpu = bench::cpu_model();
      std::printf("BENCH M1 %s: ratio=%.3f (kindling %.1f MB vs %s %.1f MB; before the data %.1f vs %.1f MB; with "
                  "the data %.1f vs %.1f MB) | cpu=\"%s\" alloc=%s peer=%s\n",
                  bench::titled("peak RSS SimpleNet training (uint8 images, batches converted as taken)", ps).c_str(),
                  lt_peak / kd_peak, kd_peak / 1024.0, lt_name.c_str(), lt_peak / 1024.0, ready(kd_m1, "lib_rss_kb") / 1024.0,
                  ready(lt_m1, "lib_rss_kb") / 1024.0, ready(kd_m1, "data_rss_kb") / 1024.0,
                  ready(lt_m1, "data_rss_kb") / 1024.0, cpu.c_str(), ps.alloc.c_str(), ps.mode.c_str());
      // Anonymous memory is what the framework allocated; file-backed memory is mostly its libraries' code.
      const double kd_anon = at_end(kd_rep, "anon_kb"), lt_anon = at_end(lt_rep, "anon_kb");
      const int trained = m1_reps * steps;
      std::printf("BENCH M1 %s: ratio=%.3f (kindling %.1f MB vs %s %.1f MB; file-backed %.1f vs %.1f MB; anonymous "
                  "growth over %d training steps after the warm-up %+.1f vs %+.1f MB) | cpu=\"%s\" alloc=%s peer=%s\n",
                  bench::titled("anonymous RSS SimpleNet training (RssAnon at the end)", ps).c_str(), lt_anon / kd_anon,
                  kd_anon / 1024.0, lt_name.c_str(), lt_anon / 1024.0, at_end(kd_rep, "file_kb") / 1024.0,
                  at_end(lt_rep, "file_kb") / 1024.0, trained, (kd_anon - ready(kd_m1, "anon_kb")) / 1024.0,
                  (lt_anon - ready(lt_m1, "anon_kb")) / 1024.0, cpu.c_str(), ps.alloc.c_str(), ps.mode.c_str());
    }
    // The same peaks in the P1 processes above, which hold every image as float (188 MB) on both sides.
    const long rss = self_peak_rss_kb();
    std::printf("  (P1's processes, all images as float in memory: kindling %.0f MB vs libtorch %.0f MB, of "
                "which data %.0f MB vs %.0f MB)\n",
                rss / 1024.0, lt_rss / 1024.0, data_rss / 1024.0, lt_data_rss / 1024.0);
  }
  std::fflush(stdout);
  if (!agree) return 1;
  if (!opt.quick && !(have_libtorch && have_python)) return 1;  // a full run needs both peers
  return 0;
}
