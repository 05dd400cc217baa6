// What compiling buys, measured: kd::compile against eager Kindling on the elementwise
// model and on BENCH P9's block at two widths, the forward and an SGD training step,
// one thread, CPU time, interleaved (common.hpp's paired_speedup). Then the compile
// time, cold and from the cache, and where each block's eager forward spends its time.
#include <chrono>
#include <filesystem>

#include "common.hpp"

// Times `model` against kd::compile(model): forward, then a training step.
void measure(const char* name, kd::nn::Module& model, const kd::Tensor& x,
             int per_rep) {
  auto fast = kd::compile(model, {.cache_dir = "ch10_speed_cache"});
  auto forward = [&](kd::nn::Module& m) {
    kd::NoGradGuard no_grad;
    for (int i = 0; i < per_rep; ++i) m(x);
  };
  kd::optim::SGD sgd(model.parameters(), {.lr = 1e-4});
  auto train = [&](kd::nn::Module& m) {
    for (int i = 0; i < per_rep; ++i) {
      sgd.zero_grad();
      kd::Tensor y = m(x);
      (y * y).mean().backward();
      sgd.step();
    }
  };
  forward(*fast), train(*fast);  // traced and compiled here, before any timing
  const std::size_t before = kd::jit::trace(model, x).num_kernels();
  const std::size_t after = fast->graph()->num_kernels();
  // [snippet: measure]
  double lo = 0, hi = 0;
  const double fwd =
      paired_speedup([&] { forward(model); }, [&] { forward(*fast); }, 15, &lo, &hi);
  std::printf("%-14s forward    compiled %.2fx eager [%.2f..%.2f]", name, fwd, lo, hi);
  // [end]
  std::printf("  kernels %zu -> %zu\n", before, after);
  const double step =
      paired_speedup([&] { train(model); }, [&] { train(*fast); }, 15, &lo, &hi);
  std::printf("%-14s train step compiled %.2fx eager [%.2f..%.2f]\n", name, step, lo,
              hi);
}

// Where the eager forward of `block` spends its time, per call.
void breakdown(const char* name, Block& block, const kd::Tensor& x) {
  kd::NoGradGuard no_grad;
  const kd::Tensor y = block(x);
  const int n = 40;
  const double c0 = cpu_seconds();
  kd::Tensor h;
  for (int i = 0; i < n; ++i) h = block.fc(x);
  const double c1 = cpu_seconds();
  for (int i = 0; i < n; ++i) h = x + F::gelu(y) * block.gamma;
  const double c2 = cpu_seconds();
  for (int i = 0; i < n; ++i) h = block.norm(y);
  const double c3 = cpu_seconds();
  std::printf("%s, eager, per call: Linear %.3f ms, GELU-scale-add %.3f ms, "
              "LayerNorm %.3f ms\n",
              name, (c1 - c0) * 1e3 / n, (c2 - c1) * 1e3 / n, (c3 - c2) * 1e3 / n);
}

int main() {
  kd::set_num_threads(1);
  kd::manual_seed(0);
  std::filesystem::remove_all("ch10_speed_cache");
  const kd::Tensor x = kd::randn({256, 512});  // batch 256, width 512

  Pointwise pointwise(512);  // x: [256, 512]
  Block block(512);
  // [snippet: compile-time]
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  auto t0 = clock::now();
  auto cold = kd::compile(block, {.cache_dir = "ch10_speed_cache"});
  (*cold)(x);  // the first call traces, generates C++, runs the compiler
  const double cold_s = seconds(t0);
  t0 = clock::now();
  auto cached = kd::compile(block, {.cache_dir = "ch10_speed_cache"});
  (*cached)(x);  // same graph, same source: the library comes from the cache
  const double cached_s = seconds(t0);
  // [end]
  std::printf("compile P9's block: %.2f s cold, %.3f s from the cache\n\n", cold_s,
              cached_s);

  measure("pointwise  512", pointwise, x, 20);  // 512 KiB per tensor: fits in L2
  Pointwise wide(8192);
  measure("pointwise 8192", wide, kd::randn({256, 8192}), 2);  // 8 MiB per tensor
  measure("block 512", block, x, 10);
  Block narrow(128);  // BENCH P9's width
  const kd::Tensor x128 = kd::randn({256, 128});
  measure("block 128", narrow, x128, 40);
  std::printf("\n");
  breakdown("block 512", block, x);
  breakdown("block 128", narrow, x128);
}
