// P8: torchvision's ResNet-18 (kd::vision::models::resnet18) vs the same network written in LibTorch 1.13
// C++ (bench/peers/p8_resnet_libtorch.cpp), 1 thread each, in the same run, from the same weights on the
// same inputs (bench/peers/p8_resnet_setup.hpp):
//   forward     eval mode without gradients, a batch of 8 images 3x224x224 (inference)
//   train step  train mode, a batch of 16 images 3x64x64, CrossEntropyLoss, backward, Adam -- with the
//               step's floor (floor.hpp, measured in the same run)
// and M2: the peak resident memory (VmHWM) of the training step, each framework in a fresh process that
// does nothing else (this program with --m2-child, the peer in train mode).
// The forward's results must agree (the sum of |logits|), and the training losses: after the warm-up
// closely, and still loosely after the timed steps (float32 in different summation orders drifts a little
// under Adam).
//
// Timing: interleaved repetitions of one forward or one step each (peer_process.hpp), CPU time, the
// median of the paired ratios; against the tuned peer, then against the peer as installed
// (bench_util.hpp). --quick: small sizes (p8::kQuick) and a few repetitions (the CTest smoke test); the
// peer is used only if it is built.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <kindling/train.hpp>
#include <kindling/vision.hpp>
#include <map>
#include <string>
#include <tuple>

#include "bench_util.hpp"
#include "floor.hpp"
#include "peers/p8_resnet_setup.hpp"
#include "peers/proc_status.hpp"

namespace kd = kindling;

#ifndef KINDLING_P8_PEER
#define KINDLING_P8_PEER ""
#endif

namespace {

/// resnet18 with p8's weights (p8_resnet_setup.hpp): convolutions, fc from the formula, BatchNorm's
/// defaults (torchvision's too).
std::shared_ptr<kd::vision::models::ResNet> make_model() {
  auto model = kd::vision::models::resnet18({.num_classes = p8::kClasses});
  kd::NoGradGuard no_grad;
  for (auto& [name, p] : model->named_parameters()) {
    const std::vector<std::int64_t> shape(p.shape().begin(), p.shape().end());
    if (p8::from_formula(name, shape)) p.copy_(kd::tensor(p8::initial(name, shape), p.shape()));
  }
  return model;
}

kd::Tensor images(std::int64_t batch, std::int64_t size) {
  return kd::tensor(p8::images(batch, size), {batch, 3, size, size});
}
kd::Tensor labels(std::int64_t batch) { return kd::tensor(p8::labels(batch), {batch}); }

/// One training step's loop: zero_grad, forward, loss, backward, Adam step; `last` is the last loss.
struct Trainer {
  std::shared_ptr<kd::vision::models::ResNet> model = make_model();
  kd::optim::Adam optimizer{model->parameters(), {.lr = 1e-3}};
  kd::nn::CrossEntropyLoss criterion;
  kd::Tensor X, Y;
  double last = 0;
  Trainer(std::int64_t batch, std::int64_t size) : X(images(batch, size)), Y(labels(batch)) { model->train(); }
  void run(int count) {
    for (int s = 0; s < count; ++s) {
      optimizer.zero_grad();
      kd::Tensor loss = criterion((*model)(X), Y);
      loss.backward();
      optimizer.step();
      last = loss.item<double>();
    }
  }
};

/// A convolution of ResNet-18 (no bias): channels, kernel, stride, padding, input size.
struct ConvSpec {
  const char* name;
  std::int64_t cin, cout, k, stride, pad, hin;
  std::int64_t hout() const { return (hin + 2 * pad - k) / stride + 1; }
};

/// ResNet-18's convolutions on an input of size x size, in forward order.
std::vector<ConvSpec> resnet18_convs(std::int64_t size) {
  std::vector<ConvSpec> convs{{"conv1", 3, 64, 7, 2, 3, size}};
  std::int64_t h = (convs[0].hout() + 2 - 3) / 2 + 1;  // after the 3x3/2 max-pool
  std::int64_t in = 64;
  const char* names[4][5] = {
      {"layer1.0.conv1", "layer1.0.conv2", "", "layer1.1.conv1", "layer1.1.conv2"},
      {"layer2.0.conv1", "layer2.0.conv2", "layer2.0.downsample", "layer2.1.conv1", "layer2.1.conv2"},
      {"layer3.0.conv1", "layer3.0.conv2", "layer3.0.downsample", "layer3.1.conv1", "layer3.1.conv2"},
      {"layer4.0.conv1", "layer4.0.conv2", "layer4.0.downsample", "layer4.1.conv1", "layer4.1.conv2"}};
  for (int layer = 0; layer < 4; ++layer) {
    const std::int64_t planes = 64 << layer, stride = layer == 0 ? 1 : 2;
    const ConvSpec first{names[layer][0], in, planes, 3, stride, 1, h};
    const std::int64_t h2 = first.hout();
    convs.push_back(first);
    convs.push_back({names[layer][1], planes, planes, 3, 1, 1, h2});
    if (stride != 1 || in != planes) convs.push_back({names[layer][2], in, planes, 1, stride, 0, h});
    convs.push_back({names[layer][3], planes, planes, 3, 1, 1, h2});
    convs.push_back({names[layer][4], planes, planes, 3, 1, 1, h2});
    in = planes, h = h2;
  }
  return convs;
}

/// The training step for the floor (floor.hpp): each convolution as its im2col product over the batch
/// ([C_out, C_in k k] x [C_in k k, N H' W']), its weight gradient and (but for the first, whose input
/// needs no gradient) its input gradient; then fc's three products.
bench::StepModel resnet18_step(std::int64_t batch, std::int64_t size, double parameters) {
  bench::StepModel m;
  for (const ConvSpec& c : resnet18_convs(size)) {
    const std::int64_t K = c.cin * c.k * c.k, L = batch * c.hout() * c.hout();
    m.gemms.push_back({c.name, c.cout, L, K, false, false});                 // forward W @ cols
    m.gemms.push_back({c.name, c.cout, K, L, false, true});                  // weight grad dY @ cols^T
    if (c.cin != 3) m.gemms.push_back({c.name, K, L, c.cout, true, false});  // input grad W^T @ dY
  }
  m.gemms.push_back({"fc forward x@W^T", batch, p8::kClasses, 512, false, true});
  m.gemms.push_back({"fc weight grad g^T@x", p8::kClasses, 512, batch, true, false});
  m.gemms.push_back({"fc input grad g@W", batch, 512, p8::kClasses, false, false});
  m.parameters = parameters;
  m.input_bytes = static_cast<double>(batch * 3 * size * size) * 4;
  return m;
}

/// floor.hpp's measure_floor, with each distinct shape timed once (ResNet-18's 62 products have 35
/// shapes: its blocks repeat), so that the floor costs the run seconds, not tens of seconds.
bench::Floor measure_floor_distinct(const bench::StepModel& step, bool quick) {
  bench::Floor f;
  f.flops = step.flops();
  f.bytes = step.bytes();
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, bool>, double> timed;
  for (const auto& g : step.gemms) {
    auto [it, fresh] = timed.try_emplace(std::make_tuple(g.M, g.N, g.K, g.trans_a, g.trans_b), 0.0);
    if (fresh) it->second = bench::raw_sgemm_seconds(g, quick);
    f.gemm_s += it->second;
  }
  f.stream_bps = bench::triad_rate(f.bytes, quick);
  f.mem_s = f.bytes / f.stream_bps;
  return f;
}

// The peak resident set of this process's memory (VmHWM), in kB (not getrusage's ru_maxrss: that
// survives fork and execve).
long self_peak_rss_kb() { return peers::proc_status_kb("VmHWM"); }

/// M2's Kindling side, in a fresh process, talking the peer protocol (peer_process.hpp) like the peer.
int m2_child(int steps, int warmup, const p8::Sizes& sizes) {
  bench::process_settings();
  Trainer t(sizes.train_batch, sizes.train_size);
  t.run(warmup);
  std::printf("ready check=%.9g\n", t.last);
  std::fflush(stdout);
  char line[64];
  while (std::fgets(line, sizeof line, stdin) && std::string(line) == "run\n") {
    const double c0 = bench::cpu_seconds(), w0 = bench::wall_seconds();
    t.run(steps);
    std::printf("cpu=%.9g wall=%.9g check=%.9g rss_kb=%ld anon_kb=%ld file_kb=%ld\n", bench::cpu_seconds() - c0,
                bench::wall_seconds() - w0, t.last, self_peak_rss_kb(), peers::proc_status_kb("RssAnon"),
                peers::proc_status_kb("RssFile"));
    std::fflush(stdout);
  }
  return 0;
}

double ready_check(const bench::PeerProcess& p) {
  const std::string v = bench::ready_value(p.ready_line(), "check");
  return v.empty() ? std::nan("") : std::stod(v);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "--m2-child")
    return m2_child(std::atoi(argv[2]), std::atoi(argv[3]), argc > 4 ? p8::kQuick : p8::kFull);
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  const p8::Sizes sz = opt.quick ? p8::kQuick : p8::kFull;
  const int warmup = opt.quick ? 1 : 2, reps = opt.quick ? 2 : 9;
  std::vector<std::string> quick_arg;
  if (opt.quick) quick_arg.push_back("quick");
  char buf[160];

  const std::string peer_path = KINDLING_P8_PEER;
  if (!bench::file_exists(peer_path)) {
    std::fprintf(stderr, "resnet: LibTorch peer not built (%s); `make bench` builds it (target bench_peers)\n",
                 peer_path.empty() ? "LibTorch was not found at configure time" : peer_path.c_str());
    std::printf("BENCH P8 ResNet-18: skipped (no LibTorch peer)\n");
    return opt.quick ? 0 : 1;  // `make bench` builds the peer, so a missing one there is a failure
  }
  auto start_peer = [&](bench::PeerProcess& peer, const char* mode, int calls, const bench::PeerSettings& ps) {
    std::vector<std::string> args{peer_path, mode, std::to_string(calls), std::to_string(warmup)};
    args.insert(args.end(), quick_arg.begin(), quick_arg.end());
    if (peer.start(args, "", ps.env)) return true;
    std::fprintf(stderr, "resnet: the LibTorch peer %s did not start\n", peer_path.c_str());
    return false;
  };

  // ---- P8 forward: eval mode, no gradients ----
  {
    auto model = make_model();
    model->eval();
    const kd::Tensor X = images(sz.forward_batch, sz.forward_size);
    double check = 0;
    auto forward = [&] {
      kd::NoGradGuard no_grad;
      check = (*model)(X).abs().sum().item<double>();
    };
    for (int i = 0; i < warmup; ++i) forward();
    std::snprintf(buf, sizeof buf, "ResNet-18 forward %lldx%lld batch %lld (eval, 1 thread)",
                  static_cast<long long>(sz.forward_size), static_cast<long long>(sz.forward_size),
                  static_cast<long long>(sz.forward_batch));
    const std::string what = buf;
    for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
      bench::PeerProcess peer;
      if (!start_peer(peer, "forward", 1, ps)) return 1;
      if (!p8::close(check, ready_check(peer), 1e-3)) {
        std::fprintf(stderr,
                     "resnet: forward: Kindling's sum of |logits| is %.9g, "
                     "LibTorch's %.9g\n",
                     check, ready_check(peer));
        return 1;
      }
      const auto paired = bench::interleave(forward, peer, reps);
      if (!paired) return 1;
      bench::report_paired("P8", bench::titled(what, ps), *paired, "kindling", bench::peer_name("libtorch", ps),
                           bench::Sides::peer(ps, peer.ready_line(), 1, "batch"));
      if (ps.mode == "tuned")
        std::printf(
            "  (%d interleaved repetitions of one forward, CPU time; "
            "sum of |logits|: kindling %.6g, "
            "libtorch %.6g)\n",
            reps, check, ready_check(peer));
    }
  }

  // ---- P8 train step: train mode, CrossEntropyLoss, Adam ----
  {
    Trainer t(sz.train_batch, sz.train_size);
    t.run(warmup);
    const double warm_loss = t.last;
    double parameters = 0;
    for (const auto& p : t.model->parameters()) parameters += static_cast<double>(p.numel());
    const bench::StepModel step_model = resnet18_step(sz.train_batch, sz.train_size, parameters);
    const bench::Floor floor = measure_floor_distinct(step_model, opt.quick);
    std::snprintf(buf, sizeof buf, "ResNet-18 train step %lldx%lld batch %lld (Adam, 1 thread)",
                  static_cast<long long>(sz.train_size), static_cast<long long>(sz.train_size),
                  static_cast<long long>(sz.train_batch));
    const std::string what = buf;
    int kd_steps = warmup;
    for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
      bench::PeerProcess peer;
      if (!start_peer(peer, "train", 1, ps)) return 1;
      if (!p8::close(warm_loss, ready_check(peer), 1e-3)) {
        std::fprintf(stderr, "resnet: after %d steps Kindling's loss is %.9g, LibTorch's %.9g\n", warmup, warm_loss,
                     ready_check(peer));
        return 1;
      }
      // Kindling's model has trained on since the first peer's warm-up; each peer starts again. Compare the
      // losses after the same number of steps, which holds for the first peer only.
      const bool in_step = kd_steps == warmup;
      double peer_last = 0;
      const auto paired = bench::interleave_with([&] { t.run(1), ++kd_steps; },
                                                 [&] {
                                                   auto rep = peer.run();
                                                   if (rep) peer_last = std::stod(rep->extra["check"]);
                                                   return rep;
                                                 },
                                                 reps);
      if (!paired) return 1;
      if (in_step && !p8::close(t.last, peer_last, 0.05)) {
        std::fprintf(stderr, "resnet: after %d steps Kindling's loss is %.6g, LibTorch's %.6g\n", kd_steps, t.last,
                     peer_last);
        return 1;
      }
      auto sides = bench::Sides::peer(ps, peer.ready_line(), 1, "step");
      sides.floor_s = floor.total();
      bench::report_paired("P8", bench::titled(what, ps), *paired, "kindling", bench::peer_name("libtorch", ps), sides);
      if (ps.mode == "tuned") {
        bench::print_floor("P8", floor, step_model.gemms.size());
        std::printf(
            "  (%d interleaved repetitions of one step, CPU time; "
            "losses after %d steps: kindling %.4f, "
            "libtorch %.4f)\n",
            reps, kd_steps, t.last, peer_last);
      }
    }
  }

  // ---- M2: the training step's peak RSS, each framework in a fresh process doing nothing else ----
  {
    char exe[4096] = {};
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return 1;
    const int m2_steps = 1, m2_reps = 2;
    std::snprintf(buf, sizeof buf, "peak RSS ResNet-18 train step %lldx%lld batch %lld",
                  static_cast<long long>(sz.train_size), static_cast<long long>(sz.train_size),
                  static_cast<long long>(sz.train_batch));
    const std::string what = buf;
    for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
      bench::PeerProcess kd_m2, lt_m2;
      std::vector<std::string> kd_args{exe, "--m2-child", std::to_string(m2_steps), std::to_string(warmup)};
      kd_args.insert(kd_args.end(), quick_arg.begin(), quick_arg.end());
      if (!kd_m2.start(kd_args) || !start_peer(lt_m2, "train", m2_steps, ps)) return 1;
      bench::PeerRep kd_rep, lt_rep;
      for (int r = 0; r < m2_reps; ++r) {  // alternate which goes first, as everywhere
        std::optional<bench::PeerRep> a, b;
        if (r % 2 == 0)
          a = kd_m2.run(), b = lt_m2.run();
        else
          b = lt_m2.run(), a = kd_m2.run();
        if (!a || !b) return 1;
        kd_rep = *a, lt_rep = *b;
      }
      auto at_end = [](const bench::PeerRep& r, const char* key) { return std::stod(r.extra.at(key)); };
      if (!p8::close(at_end(kd_rep, "check"), at_end(lt_rep, "check"), 0.05)) {
        std::fprintf(stderr, "resnet (M2): Kindling's loss is %.6g, LibTorch's %.6g\n", at_end(kd_rep, "check"),
                     at_end(lt_rep, "check"));
        return 1;
      }
      const double kd_peak = at_end(kd_rep, "rss_kb"), lt_peak = at_end(lt_rep, "rss_kb");
      static const std::string cpu = bench::cpu_model();
      std::printf(
          "BENCH M2 %s: ratio=%.3f (kindling %.1f MB vs %s %.1f MB; at "
          "the end anonymous %.1f vs %.1f MB, "
          "file-backed %.1f vs %.1f MB; after %d steps) | cpu=\"%s\" "
          "alloc=%s peer=%s\n",
          bench::titled(what, ps).c_str(), lt_peak / kd_peak, kd_peak / 1024.0,
          bench::peer_name("libtorch", ps).c_str(), lt_peak / 1024.0, at_end(kd_rep, "anon_kb") / 1024.0,
          at_end(lt_rep, "anon_kb") / 1024.0, at_end(kd_rep, "file_kb") / 1024.0, at_end(lt_rep, "file_kb") / 1024.0,
          warmup + m2_reps * m2_steps, cpu.c_str(), ps.alloc.c_str(), ps.mode.c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
