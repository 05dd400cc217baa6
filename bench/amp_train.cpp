// P7: mixed precision on the CPU. The seed's SimpleNet (784-128-10, ReLU), Adam lr 1e-3,
// CrossEntropyLoss, batches of 64 taken in order from Fashion-MNIST in memory, 1 thread; one training
// step is zero_grad -> forward and loss -> backward -> step -> loss.item(), in float32 or with the
// forward and the loss inside a bfloat16 autocast region (torch.autocast("cpu", dtype=torch.bfloat16)).
// No GradScaler: bfloat16 has float32's range, and PyTorch 1.13 has no CPU GradScaler.
//   BENCH P7 bf16 autocast step vs fp32            Kindling's two steps, interleaved in this process
//   BENCH P7 bf16 autocast step vs PyTorch autocast Kindling's bf16 step vs PyTorch 1.13's
//   BENCH P7 PyTorch's own bf16 autocast vs fp32   the same question asked of PyTorch
//                                                  (bench/peers/p7_pytorch.py, same run)
// Which kernel multiplies the bfloat16 matrices (oneDNN, or the float32 GEMM of the widened
// operands on a CPU without bfloat16 instructions) is printed first: the answer depends on it.
// Method (peer_process.hpp): interleaved repetitions, CPU time, the median of the paired ratios and
// their interquartile range; PyTorch tuned, then as installed (bench_util.hpp: PeerSettings). Kindling's
// bfloat16 lines carry the step's floor (floor.hpp), measured in the same run.
#include <sys/stat.h>

#include <cmath>
#include <kindling/amp.hpp>
#include <string>

#include "bench_util.hpp"
#include "floor.hpp"

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
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }  // x: [64, 784]
};

bool exists(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0;
}

/// One model and its optimizer, trained in float32 or under bfloat16 autocast on the batches in order.
struct Trainer {
  Trainer(const kd::Tensor& x, const kd::Tensor& y, bool use_amp) : X(x), Y(y), amp(use_amp) {}
  const kd::Tensor& X;
  const kd::Tensor& Y;
  bool amp;
  SimpleNet model;
  kd::optim::Adam optimizer{model.parameters(), {.lr = 1e-3}};
  kd::nn::CrossEntropyLoss criterion;
  std::int64_t cursor = 0;
  double last = 0;

  void run(int count) {
    const std::int64_t batch = 64, batches = X.size(0) / batch;
    for (int s = 0; s < count; ++s, ++cursor) {
      const std::int64_t b = cursor % batches;
      const kd::Tensor inputs = X.slice(0, b * batch, (b + 1) * batch);   // [64, 784]
      const kd::Tensor targets = Y.slice(0, b * batch, (b + 1) * batch);  // [64]
      optimizer.zero_grad();
      kd::Tensor loss;
      {
        kd::amp::AutocastGuard autocast({.dtype = kd::kBFloat16, .enabled = amp});
        loss = criterion(model(inputs), targets);  // bfloat16 logits, float32 loss under autocast
      }
      loss.backward();
      optimizer.step();
      last = loss.item<double>();
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  const int steps = opt.quick ? 10 : 200, warmup = opt.quick ? 10 : 100, reps = opt.quick ? 3 : 11;
  std::printf("bfloat16 GEMM here: %s\n", kd::bfloat16_gemm_backend().c_str());

  kd::data::FashionMNIST train(kd::data::Split::Train);
  kd::Tensor X = train.data().to(kd::kFloat32).view({-1, 784});
  X.div_(255.0);
  const kd::Tensor Y = train.targets();
  // The same initial weights for both (the same seed before each model).
  kd::manual_seed(0);
  Trainer fp32(X, Y, false);
  kd::manual_seed(0);
  Trainer bf16(X, Y, true);
  fp32.run(warmup);
  bf16.run(warmup);

  bool ok = true;
  // The same steps from the same weights: bfloat16 rounding moves the losses apart, not far.
  auto check = [&](const char* what, double mine, double theirs) {
    if (!std::isfinite(mine) || !std::isfinite(theirs) || std::abs(mine - theirs) > 0.75) {
      std::fprintf(stderr, "amp_train: %s: losses %.4f vs %.4f after the same steps\n", what, mine, theirs);
      ok = false;
    }
  };

  // The floor of the bfloat16 step: its products at the better of the raw float32 GEMM and Kindling's
  // bfloat16 matmul on each shape (floor.hpp), its traffic at the STREAM rate.
  bench::StepModel step_model = bench::simplenet_step(64, true);
  step_model.bf16_gemm = [](const bench::GemmShape& g, bool quick) {
    const kd::Tensor a = (g.trans_a ? kd::randn({g.K, g.M}) : kd::randn({g.M, g.K})).to(kd::kBFloat16);
    const kd::Tensor b = (g.trans_b ? kd::randn({g.N, g.K}) : kd::randn({g.K, g.N})).to(kd::kBFloat16);
    const kd::Tensor av = g.trans_a ? a.t() : a, bv = g.trans_b ? b.t() : b;
    return bench::time_call(
        [&] {
          kd::Tensor y = av.matmul(bv);
          asm volatile("" : : "r"(y.raw_data_ptr()) : "memory");
        },
        quick);
  };
  const bench::Floor floor = bench::measure_floor(step_model, opt.quick);

  const auto own = bench::interleave_local([&] { bf16.run(steps); }, [&] { fp32.run(steps); }, reps);
  if (!own) return 1;
  check("Kindling bf16 vs fp32", bf16.last, fp32.last);
  bench::Sides own_sides;
  own_sides.units = steps, own_sides.unit = "step", own_sides.floor_s = floor.total();
  own_sides.peer_gemm = peers::gemm_backends();
  bench::report_paired("P7", "bf16 autocast step vs fp32", *own, "kindling-bf16", "kindling-fp32", own_sides);
  bench::print_floor("P7", floor, step_model.gemms.size());

  const std::string peer_script = std::string(KINDLING_BENCH_PEERS) + "/p7_pytorch.py";
  if (!exists(peer_script) || !exists(KINDLING_PYTHON)) {
    std::fprintf(stderr, "amp_train: the PyTorch peer (%s) is missing\n", peer_script.c_str());
    return opt.quick ? (ok ? 0 : 1) : 1;
  }
  for (const bench::PeerSettings& ps : bench::both_peer_settings()) {
    bench::PeerProcess py;
    if (!py.start({KINDLING_PYTHON, peer_script, std::to_string(steps), std::to_string(warmup)}, "", ps.env)) {
      std::fprintf(stderr, "amp_train: the PyTorch peer (%s) did not start\n", peer_script.c_str());
      return opt.quick ? (ok ? 0 : 1) : 1;
    }
    bench::PeerRep last_bf16;
    const auto vs_torch = bench::interleave_with(
        [&] { bf16.run(steps); },
        [&] {
          auto rep = py.run("bf16");
          if (rep) last_bf16 = *rep;
          return rep;
        },
        reps);
    if (!vs_torch) return 1;
    check("Kindling bf16 vs PyTorch bf16", bf16.last, std::stod(last_bf16.extra.at("loss")));
    auto sides = bench::Sides::peer(ps, py.ready_line(), steps, "step");
    sides.floor_s = floor.total();
    bench::report_paired("P7", bench::titled("bf16 autocast step vs PyTorch autocast", ps), *vs_torch, "kindling",
                         bench::peer_name("pytorch-1.13", ps), sides);
    if (ps.mode != "tuned") continue;

    // PyTorch against itself (tuned): both steps run in the peer, which times each; the same pairing,
    // alternating which goes first.
    std::vector<double> ratios, t16, t32;
    bench::Usage u16{0, 0, 0, true}, u32{0, 0, 0, true};
    for (int r = 0; r < reps + 1; ++r) {
      std::optional<bench::PeerRep> a, b;
      if (r % 2 == 0) a = py.run("bf16"), b = py.run("fp32");
      else b = py.run("fp32"), a = py.run("bf16");
      if (!a || !b) return 1;
      if (r == 0) continue;  // a warm-up of each, as interleave_with does
      t16.push_back(a->cpu_s);
      t32.push_back(b->cpu_s);
      ratios.push_back(b->cpu_s / a->cpu_s);
      u16 += a->usage, u32 += b->usage;
    }
    bench::Paired torch_own;
    torch_own.reps = reps;
    torch_own.ratio = bench::quantile(ratios, 0.5);
    torch_own.lo = bench::quantile(ratios, 0.25);
    torch_own.hi = bench::quantile(ratios, 0.75);
    torch_own.kindling_s = bench::quantile(t16, 0.5);
    torch_own.peer_s = bench::quantile(t32, 0.5);
    torch_own.kindling_usage = u16, torch_own.peer_usage = u32;
    auto own_torch = bench::Sides::peer(ps, py.ready_line(), steps, "step");
    own_torch.first_gemm = own_torch.peer_gemm;  // both steps run in the peer
    bench::report_paired("P7", "PyTorch's own bf16 autocast step vs its fp32", torch_own, "pytorch-bf16",
                         "pytorch-fp32", own_torch);
  }
  std::printf("  (times per repetition of %d steps; 1 thread; CPU time)\n", steps);
  std::fflush(stdout);
  return ok ? 0 : 1;
}
