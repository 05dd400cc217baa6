// P2 — matmul through Kindling's Tensor vs a raw cblas_sgemm call, 1 thread, float32.
//
// The shapes: a square 512^3 product, and the three products of the MLP's first layer (batch 32,
// 784 -> 128), which are what a training step spends its time on:
//   forward   y  = x @ W^T     x: [32, 784], W: [128, 784]  (W^T is a transposed *view*)
//   backward  dW = g^T @ x     g: [32, 128]                 (g^T is a transposed view)
//   backward  dx = g @ W
// Kindling should pass the views' strides to GEMM as transpose flags (no copies), so the only
// overhead over raw BLAS is allocating the output and building a Tensor. Target: ratio >= 0.95.
// Timing: interleaved repetitions of ~1 GFLOP each, CPU time, median of the paired ratios.
#include <cblas.h>

#include <kindling/tensor.hpp>

#include "bench_util.hpp"

namespace kd = kindling;

namespace {

struct Case {
  const char* what;
  std::int64_t M, N, K;
  bool trans_a, trans_b;  // as seen by GEMM: C[M, N] = op(A) @ op(B)
};

void run(const Case& c, const bench::Options& opt) {
  // Operands stored the way the model stores them; op() is a transposed view of that storage.
  const kd::Tensor a = c.trans_a ? kd::randn({c.K, c.M}) : kd::randn({c.M, c.K});
  const kd::Tensor b = c.trans_b ? kd::randn({c.N, c.K}) : kd::randn({c.K, c.N});
  const kd::Tensor av = c.trans_a ? a.t() : a;  // [M, K]
  const kd::Tensor bv = c.trans_b ? b.t() : b;  // [K, N]
  std::vector<float> out(static_cast<std::size_t>(c.M * c.N));

  auto kindling = [&] {
    kd::Tensor y = av.matmul(bv);  // allocates y, like torch.matmul
    asm volatile("" : : "r"(y.raw_data_ptr()) : "memory");
  };
  auto raw = [&] {
    cblas_sgemm(CblasRowMajor, c.trans_a ? CblasTrans : CblasNoTrans, c.trans_b ? CblasTrans : CblasNoTrans,
                static_cast<int>(c.M), static_cast<int>(c.N), static_cast<int>(c.K), 1.0f, a.data_ptr<float>(),
                static_cast<int>(a.size(1)), b.data_ptr<float>(), static_cast<int>(b.size(1)), 0.0f, out.data(),
                static_cast<int>(c.N));
    asm volatile("" : : "r"(out.data()) : "memory");
  };

  // Same answer first: a benchmark of a wrong result is worthless.
  raw();
  const kd::Tensor y = av.matmul(bv);
  const kd::Tensor expected = kd::from_blob(out.data(), {c.M, c.N}, kd::kFloat32);
  if (!kd::allclose(y, expected, 1e-4, 1e-4)) {
    std::fprintf(stderr, "matmul bench: %s: Kindling and cblas_sgemm disagree\n", c.what);
    std::exit(1);
  }
  // Aim for ~1 GFLOP (10-50 ms) per round so timer noise does not matter.
  const double flops = 2.0 * c.M * c.N * c.K;
  const int iters = opt.quick ? 2 : std::max(1, static_cast<int>(1e9 / flops));
  const int reps = opt.quick ? 3 : 21;
  const auto paired = bench::interleave_local(
      [&] { for (int i = 0; i < iters; ++i) kindling(); }, [&] { for (int i = 0; i < iters; ++i) raw(); }, reps);
  bench::Paired per_call = *paired;  // the figures per product, the ratios as measured
  per_call.kindling_s /= iters;
  per_call.peer_s /= iters;
  bench::Sides sides;  // both sides in this process: the same libraries
  sides.units = iters, sides.unit = "call", sides.peer_gemm = peers::gemm_backends();
  bench::report_paired("P2", std::string("matmul ") + c.what, per_call, "kindling", "cblas_sgemm", sides);
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse(argc, argv);
  bench::process_settings();
  kd::manual_seed(0);
  const Case cases[] = {
      {"512x512x512", 512, 512, 512, false, false},
      {"x@W^T [32,784]x[128,784]^T", 32, 128, 784, false, true},
      {"g^T@x [32,128]^T x[32,784]", 128, 784, 32, true, false},
      {"g@W [32,128]x[128,784]", 32, 784, 128, false, false},
  };
  for (const Case& c : cases) run(c, opt);
  return 0;
}
