// P9: kd::compile (lib/src/jit/compile_*.cpp) on an MLP whose work outside the GEMMs is elementwise:
// 3 blocks of  x -> LayerNorm(x + GELU(Linear(x)) * gamma),  x: [256, 128], 1 thread. Compiled
// against eager Kindling (in this process) and against PyTorch 1.13 eager (bench/peers/p9_mlp_pytorch.py:
// Debian's PyTorch 1.13 has no torch.compile, so eager is its best), the forward and an SGD training
// step (a fused region's backward generated too, and, on a line of its own, its eager ops recomputed
// instead). All sides start from the same weights (formulas below and in the peer), and their
// forwards must agree before anything is timed.
//
// What compiling changes here: GELU, the scale by gamma, the residual add and the LayerNorm run as
// one generated kernel per block instead of four (fuse_layer_norm: each row is computed, summed and
// normalised while it is in L1; three intermediates per block never written), in place over the
// GEMM's result; the GEMMs are the same calls. The line after the BENCH lines says how many kernels
// each forward launches before and after fusion, the bytes it does not write, and the compile time,
// cold (an empty cache folder) and cached.
//
// The training lines carry the step's floor (floor.hpp: its 8 GEMMs, each timed raw on its shape, and
// SGD's compulsory parameter traffic at the STREAM rate), measured in the same run.
//
// Timing: interleaved repetitions, CPU time, the median of the paired ratios (peer_process.hpp).
// --quick: a few repetitions (the CTest smoke test).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <kindling/autograd.hpp>
#include <kindling/jit.hpp>
#include <kindling/nn.hpp>
#include <kindling/train.hpp>
#include <string>
#include <unistd.h>

#include "bench_util.hpp"
#include "floor.hpp"

namespace kd = kindling;
namespace fs = std::filesystem;

#ifndef KINDLING_BENCH_PEERS
#define KINDLING_BENCH_PEERS ""
#endif
#ifndef KINDLING_PYTHON
#define KINDLING_PYTHON "/usr/bin/python3"
#endif

namespace {

// Width 128: the GEMMs are under half of the eager forward's time and the elementwise work the rest
// (at 512 the GEMMs take most of it, and compiling cannot touch them; chapter 10 measures both).
constexpr std::int64_t kBatch = 256, kWidth = 128, kBlocks = 3;

/// offset + scale * sin(0.37 i + k), computed in double and rounded to float32 (the peer does the same).
kd::Tensor formula(std::int64_t k, const kd::Shape& shape, double scale, double offset) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>(offset + scale * std::sin(0.37 * static_cast<double>(i) +
                                                                                   static_cast<double>(k)));
  return kd::tensor(v, shape);
}

struct Block : kd::nn::Module {
  kd::nn::Linear fc{kWidth, kWidth};
  kd::nn::LayerNorm norm{kd::Shape{kWidth}};
  kd::Tensor gamma;
  explicit Block(std::int64_t b) {
    register_module("fc", fc);
    register_module("norm", norm);
    gamma = register_parameter("gamma", formula(10 * b + 2, {kWidth}, 0.1, 0.5));
    kd::NoGradGuard no_grad;
    fc.weight.copy_(formula(10 * b, {kWidth, kWidth}, 0.05, 0.0));
    fc.bias.copy_(formula(10 * b + 1, {kWidth}, 0.01, 0.0));
    norm.weight.copy_(formula(10 * b + 3, {kWidth}, 0.05, 1.0));
    norm.bias.copy_(formula(10 * b + 4, {kWidth}, 0.02, 0.0));
  }
  // x: [batch, width] -> [batch, width]
  kd::Tensor forward(const kd::Tensor& x) override { return norm(x + kd::nn::functional::gelu(fc(x)) * gamma); }
};

struct MLP : kd::nn::Module {
  std::vector<std::shared_ptr<Block>> blocks;
  MLP() {
    for (std::int64_t b = 0; b < kBlocks; ++b) {
      blocks.push_back(std::make_shared<Block>(b));
      register_module("block" + std::to_string(b), *blocks.back());
    }
  }
  kd::Tensor forward(const kd::Tensor& x) override {
    kd::Tensor h = x;
    for (auto& b : blocks) h = (*b)(h);
    return h;
  }
};

/// The training step as the floor sees it (floor.hpp): per block, the forward product x @ Wᵀ and the
/// weight-gradient product gᵀ @ x; the input-gradient product g @ W for every block but the first
/// (the batch needs no gradient).
bench::StepModel p9_step() {
  bench::StepModel m;
  for (std::int64_t b = 0; b < kBlocks; ++b) {
    m.gemms.push_back({"fc forward x@W^T", kBatch, kWidth, kWidth, false, true});
    m.gemms.push_back({"fc weight grad g^T@x", kWidth, kWidth, kBatch, true, false});
    if (b > 0) m.gemms.push_back({"fc input grad g@W", kBatch, kWidth, kWidth, false, false});
  }
  // fc weight and bias, gamma, LayerNorm's weight and bias
  m.parameters = static_cast<double>(kBlocks) * (kWidth * kWidth + 4.0 * kWidth);
  m.input_bytes = static_cast<double>(kBatch) * kWidth * 4;
  return m;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  const int per_rep = opt.quick ? 2 : 20, reps = opt.quick ? 3 : 11;

  MLP model;
  const kd::Tensor x = formula(100, {kBatch, kWidth}, 1.0, 0.0);
  // A cache folder of this run's own: the first compile is cold, a second module on it is cached.
  const fs::path cache = fs::temp_directory_path() / ("kindling_bench_p9_" + std::to_string(::getpid()));
  fs::remove_all(cache);
  auto t0 = std::chrono::steady_clock::now();
  auto fast = kd::compile(model, {.cache_dir = cache});
  kd::Tensor y_fast;
  {
    kd::NoGradGuard no_grad;
    y_fast = (*fast)(x);
  }
  const double cold_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto again = kd::compile(model, {.cache_dir = cache});
  {
    kd::NoGradGuard no_grad;
    (*again)(x);
  }
  const double cached_s = seconds_since(t0);
  const std::size_t before = kd::jit::trace(model, x).num_kernels();
  const std::size_t after = fast->graph()->num_kernels();
  const std::int64_t saved = kd::jit::bytes_avoided(*fast->graph());

  kd::Tensor y_eager;
  {
    kd::NoGradGuard no_grad;
    y_eager = model(x);
  }
  if (!kd::allclose(y_fast, y_eager, 1e-4, 1e-4)) {
    std::fprintf(stderr, "compile_mlp: the compiled forward differs from the eager one\n");
    return 1;
  }
  const double checksum = y_eager.to(kd::kFloat64).sum().item<double>();

  auto forward = [&](kd::nn::Module& m) {
    kd::NoGradGuard no_grad;
    for (int i = 0; i < per_rep; ++i) m(x);
  };
  kd::optim::SGD sgd(model.parameters(), {.lr = 1e-3});
  auto train = [&](kd::nn::Module& m) {
    for (int i = 0; i < per_rep; ++i) {
      sgd.zero_grad();
      const kd::Tensor y = m(x);
      (y * y).mean().backward();
      sgd.step();
    }
  };
  // Compiled against eager, in this process; the training step with each of the fused regions'
  // backwards (compile_module.cpp): generated, and the eager ops recomputed.
  auto fast_eager_backward = kd::compile(model, {.generate_backward = false, .cache_dir = cache});
  const std::string what = " (" + std::to_string(kBlocks) + " blocks Linear-GELU-scale-residual-LayerNorm, batch " +
                           std::to_string(kBatch) + "x" + std::to_string(kWidth) + ", 1 thread)";
  // The training step's floor (floor.hpp), measured now, on this CPU.
  const bench::StepModel step_model = p9_step();
  bench::Floor floor = bench::measure_floor(step_model, opt.quick);
  // floor.hpp counts Adam's 32 bytes per parameter; this step is plain SGD: the weight read and
  // written, its gradient written and read, 16 bytes. (floor.hpp itself is left as the captured
  // bench output was made with it.)
  floor.bytes = step_model.parameters * 16 + step_model.input_bytes;
  floor.stream_bps = bench::triad_rate(floor.bytes, opt.quick);
  floor.mem_s = floor.bytes / floor.stream_bps;
  bool floor_printed = false;
  for (const int variant : {0, 1, 2}) {
    const bool training = variant > 0;
    kd::nn::Module& compiled = variant == 2 ? static_cast<kd::nn::Module&>(*fast_eager_backward) : *fast;
    auto paired = bench::interleave_local([&] { training ? train(compiled) : forward(compiled); },
                                          [&] { training ? train(model) : forward(model); }, reps);
    if (!paired) return 1;
    bench::Sides sides;
    sides.units = per_rep;
    sides.unit = training ? "step" : "forward";
    if (training) sides.floor_s = floor.total();
    const char* title = variant == 0   ? "compiled MLP forward"
                        : variant == 1 ? "compiled MLP train step (generated backward)"
                                       : "compiled MLP train step (eager backward, recomputed)";
    bench::report_paired("P9", title + std::string(" vs eager kindling") + what, *paired, "kindling-compiled",
                         "kindling-eager", sides);
    if (training && !floor_printed) bench::print_floor("P9", floor, step_model.gemms.size()), floor_printed = true;
  }
  std::printf("  (kernels per forward: %zu eager, %zu compiled; intermediate bytes not written: %lld per forward; "
              "compile: %.2f s cold, %.3f s cached; %d repetitions of %d)\n",
              before, after, static_cast<long long>(saved), cold_s, cached_s, reps, per_rep);

  // Against PyTorch 1.13 eager, tuned and as installed.
  const std::string peer_script = std::string(KINDLING_BENCH_PEERS) + "/p9_mlp_pytorch.py";
  bool ok = true;
  if (!bench::file_exists(peer_script) || !bench::file_exists(KINDLING_PYTHON)) {
    std::printf("BENCH P9 compiled MLP vs PyTorch: skipped (no %s with torch)\n", KINDLING_PYTHON);
  } else {
    for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
      bench::PeerProcess peer;
      if (!peer.start({KINDLING_PYTHON, peer_script, std::to_string(per_rep)}, "", ps.env)) return 1;
      const double theirs = std::stod(bench::ready_value(peer.ready_line(), "checksum"));
      if (std::abs(theirs - checksum) > 1e-3 * std::max(1.0, std::abs(checksum))) {
        std::fprintf(stderr, "compile_mlp: the forwards disagree: kindling sums to %.6f, pytorch to %.6f\n", checksum,
                     theirs);
        ok = false;
      }
      for (const bool training : {false, true}) {
        auto paired = bench::interleave([&] { training ? train(*fast) : forward(*fast); }, peer,
                                        reps, training ? "train" : "forward");
        if (!paired) return 1;
        auto sides = bench::Sides::peer(ps, peer.ready_line(), per_rep, training ? "step" : "forward");
        if (training) sides.floor_s = floor.total();
        bench::report_paired("P9", bench::titled(std::string(training ? "compiled MLP train step"
                                                                      : "compiled MLP forward") +
                                                     " vs PyTorch eager" + what,
                                                 ps),
                             *paired, "kindling-compiled", bench::peer_name("pytorch-1.13", ps), sides);
      }
    }
  }
  std::error_code ec;
  fs::remove_all(cache, ec);
  return ok ? 0 : 1;
}
