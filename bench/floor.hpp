#pragma once
// The floor of a training step: how long the step cannot help taking on this CPU, measured in the same
// run as the step. Every training line (P1 SimpleNet, P6 CNN, P7 bfloat16 autocast) prints
// `floor=<t> (<x> of floor)`: the step's CPU time over this floor, the figure to steer by (1.00 would be
// a step that does nothing but its products and its compulsory memory traffic).
//
//   floor = sum over the step's products of the time of one raw GEMM call on that shape
//         + compulsory bytes / the STREAM triad's rate on a working set of that many bytes
//
// Products: every matrix product of the forward and backward pass, each timed on its own shape and
// transposes as one call of the fastest raw library here (cblas_sgemm of OpenBLAS or dnnl_sgemm of
// oneDNN, whichever is faster on that shape; for a bfloat16 step also Kindling's bfloat16 matmul, which
// is oneDNN's bfloat16 matmul primitive where the CPU has bfloat16 instructions -- oneDNN 2.6 has no
// raw bfloat16 GEMM call). A convolution counts as its im2col product over the whole batch
// ([C_out, C_in k k] x [C_in k k, N H W]); im2col and col2im themselves are not in the floor.
// Best of a few timed passes after a warm-up, 1 thread, the same operands call after call (warm in
// whichever cache level holds them, as between the layers of a step).
// Compulsory traffic: what the step must move besides its products' operands and results (those are
// inside the products' timings), in bytes:
//   parameters  32 B each for float32 Adam: the weight read and written, its gradient written and read,
//               Adam's two moments read and written (a bfloat16 step adds 4 B: the weight's bfloat16
//               copy written and read)
//   input       the batch, read once
// Activations are not counted apart: the products read and write them (in their timings), and the
// elementwise layers between (ReLU, max-pool, the loss) could be fused into the products' passes.
// The triad runs on three arrays that together hold the compulsory bytes, so the rate is that of the
// cache level (or memory) a working set of that size lives in: a lower bound on the traffic's time.
// Everything else a step does (the loss, ReLU, max-pool, bias sums, the framework's bookkeeping) is
// the distance to the floor.
#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace bench {

/// One product of a step: C[M, N] = op(A)[M, K] op(B)[K, N].
struct GemmShape {
  const char* what;
  std::int64_t M, N, K;
  bool trans_a = false, trans_b = false;
};

/// A step as the floor sees it.
struct StepModel {
  std::vector<GemmShape> gemms;
  double parameters = 0;   // parameter count
  double input_bytes = 0;  // the batch
  bool bf16 = false;       // bfloat16 autocast: the weights' bfloat16 copies too
  /// A bfloat16 product (Kindling's bfloat16 matmul) timed on a shape: seconds per call, or 0 if not
  /// given. Set by a bfloat16 benchmark (floor.hpp does not depend on Kindling's amp layer).
  std::function<double(const GemmShape&, bool quick)> bf16_gemm;

  double flops() const {
    double f = 0;
    for (const auto& g : gemms) f += 2.0 * static_cast<double>(g.M) * static_cast<double>(g.N) * static_cast<double>(g.K);
    return f;
  }
  double bytes() const { return parameters * (bf16 ? 36 : 32) + input_bytes; }
};

struct Floor {
  double gemm_s = 0, mem_s = 0, flops = 0, bytes = 0, stream_bps = 0;
  double total() const { return gemm_s + mem_s; }
};

/// Seconds per call of `call`, the best of a few timed passes after a warm-up (~2 ms a pass).
inline double time_call(const std::function<void()>& call, bool quick) {
  call();
  const double t0 = cpu_seconds();
  call();
  const double once = std::max(1e-7, cpu_seconds() - t0);
  const int inner = std::max(1, static_cast<int>(2e-3 / once));
  double best = 1e300;
  for (int pass = 0; pass < (quick ? 2 : 7); ++pass) {
    const double c0 = cpu_seconds();
    for (int i = 0; i < inner; ++i) call();
    best = std::min(best, (cpu_seconds() - c0) / inner);
  }
  return best;
}

/// One raw float32 GEMM call on `g`: the faster of OpenBLAS's cblas_sgemm and oneDNN's dnnl_sgemm
/// (when this process has oneDNN). Returns seconds per call and the library in `lib`.
inline double raw_sgemm_seconds(const GemmShape& g, bool quick, std::string* lib = nullptr) {
  const std::int64_t lda = g.trans_a ? g.M : g.K, ldb = g.trans_b ? g.K : g.N;
  std::vector<float> a(static_cast<std::size_t>(g.M * g.K)), b(static_cast<std::size_t>(g.K * g.N)),
      c(static_cast<std::size_t>(g.M * g.N));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 104729) % 1000) * 1e-3f - 0.5f;
  const double blas = time_call(
      [&] {
        cblas_sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans, g.trans_b ? CblasTrans : CblasNoTrans,
                    static_cast<int>(g.M), static_cast<int>(g.N), static_cast<int>(g.K), 1.0f, a.data(),
                    static_cast<int>(lda), b.data(), static_cast<int>(ldb), 0.0f, c.data(), static_cast<int>(g.N));
        asm volatile("" : : "r"(c.data()) : "memory");
      },
      quick);
  double best = blas;
  if (lib) *lib = "openblas";
  // dnnl_sgemm(transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc): row-major, like cblas.
  using Sgemm = int (*)(char, char, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t,
                        const float*, std::int64_t, float, float*, std::int64_t);
  static const auto dnnl = reinterpret_cast<Sgemm>(dlsym(RTLD_DEFAULT, "dnnl_sgemm"));
  if (dnnl) {
    // oneDNN runs on OpenMP, which read OMP_NUM_THREADS before main: one thread, like everything here.
    using SetThreads = void (*)(int);
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) set(1);
    const double onednn = time_call(
        [&] {
          dnnl(g.trans_a ? 'T' : 'N', g.trans_b ? 'T' : 'N', g.M, g.N, g.K, 1.0f, a.data(), lda, b.data(), ldb, 0.0f,
               c.data(), g.N);
          asm volatile("" : : "r"(c.data()) : "memory");
        },
        quick);
    if (onednn < best) {
      best = onednn;
      if (lib) *lib = "onednn";
    }
  }
  return best;
}

/// Measures the floor of `step` now (in this run, on this CPU).
inline Floor measure_floor(const StepModel& step, bool quick) {
  Floor f;
  f.flops = step.flops();
  f.bytes = step.bytes();
  for (const auto& g : step.gemms) {
    double t = raw_sgemm_seconds(g, quick);
    if (step.bf16 && step.bf16_gemm) {
      const double t16 = step.bf16_gemm(g, quick);
      if (t16 > 0) t = std::min(t, t16);
    }
    f.gemm_s += t;
  }
  f.stream_bps = triad_rate(f.bytes, quick);
  f.mem_s = f.bytes / f.stream_bps;
  return f;
}

/// The line under a training line that says what its floor is made of.
inline void print_floor(const char* id, const Floor& f, std::size_t products) {
  std::printf("  (%s floor %s per step: %.2f MFLOP in %zu products at %.1f GFLOP/s (raw GEMM on each shape) = %s"
              " + %.2f MB compulsory traffic at %.1f GB/s (STREAM triad on that many bytes) = %s)\n",
              id, fmt_time(f.total()).c_str(), f.flops / 1e6, products, f.flops / f.gemm_s / 1e9,
              fmt_time(f.gemm_s).c_str(), f.bytes / 1e6, f.stream_bps / 1e9, fmt_time(f.mem_s).c_str());
  std::fflush(stdout);
}

}  // namespace bench

namespace bench {

/// SimpleNet's step (784-128-10, ReLU, CrossEntropyLoss, Adam) on a batch of `batch` (P1: 32, P7: 64).
/// The input needs no gradient, so fc1 has no input-gradient product.
inline StepModel simplenet_step(std::int64_t batch, bool bf16) {
  StepModel m;
  m.gemms = {
      {"fc1 forward x@W1^T", batch, 128, 784, false, true},
      {"fc2 forward h@W2^T", batch, 10, 128, false, true},
      {"fc2 weight grad g2^T@h", 10, 128, batch, true, false},
      {"fc2 input grad g2@W2", batch, 128, 10, false, false},
      {"fc1 weight grad g1^T@x", 128, 784, batch, true, false},
  };
  m.parameters = 784.0 * 128 + 128 + 128.0 * 10 + 10;
  m.input_bytes = static_cast<double>(batch) * 784 * 4;  // float32 images
  m.bf16 = bf16;
  return m;
}

}  // namespace bench
