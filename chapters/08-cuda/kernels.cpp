// Chapter 8 — every version of the chapter's kernels against the CPU library, on the
// kernel emulator. The emulator checks correctness (every index, every barrier, every
// shared-memory access), never speed: bench_kernels.cpp times the same kernels on a
// GPU. What it can count is the work a kernel asks of memory: the global-memory reads
// of each matmul version across sizes (ch08_traffic.csv; the book plots them).
#include <kindling/kindling.hpp>
#include <kindling/cuda.hpp>
#include <kindling/cuda/emulator.hpp>  // the launch record (launch_log)

#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

namespace kd = kindling;
namespace emu = kindling::cuda::emulated;

// The largest |got - want| over two equally long lists.
double max_error(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(double(got[i]) - double(want[i])));
  return worst;
}

int main() {
  kd::manual_seed(0);
  std::printf("On the kernel emulator (correctness only: no timings)\n");

  // [snippet: matmul-check]
  const int M = 96, N = 80, K = 72;  // not multiples of the tiles (16, 64)
  const kd::Tensor a = kd::randn({M, K}), b = kd::randn({K, N});
  const std::vector<float> want = kd::matmul(a, b).to_vector<float>();
  const std::pair<const char*, decltype(&emu::matmul_v1)> versions[] = {
      {"matmul v1 naive", emu::matmul_v1},
      {"matmul v2 shared-memory tiles", emu::matmul_v2},
      {"matmul v3 register blocking", emu::matmul_v3}};
  for (const auto& [name, matmul] : versions) {
    std::vector<float> c(M * N);
    matmul(a.data_ptr<float>(), b.data_ptr<float>(), c.data(), M, N, K);
    std::printf("%-32s [%d, %d] @ [%d, %d]  max error %.1e\n", name, M, K, K, N,
                max_error(c, want));
  }
  // [end]

  const kd::Tensor x = kd::randn({50000});
  double exact = 0;
  for (float v : x.to_vector<float>()) exact += v;
  using Sum = void (*)(const float*, std::int64_t, float*);
  const std::pair<const char*, Sum> sums[] = {
      {"sum v1 shared-memory tree", emu::sum_v1},
      {"sum v2 warp shuffles", emu::sum_v2}};
  for (const auto& [name, sum] : sums) {
    float out = 0;
    sum(x.data_ptr<float>(), x.numel(), &out);
    std::printf("%-32s 50000 floats            error %.1e\n", name,
                std::abs(out - exact));
  }

  const kd::Tensor logits = kd::randn({8, 1000}) * kd::scalar_tensor(5.0);
  std::vector<float> probs(8 * 1000);
  emu::softmax_rows(logits.data_ptr<float>(), probs.data(), 8, 1000);
  std::printf("%-32s [8, 1000]               max error %.1e\n", "softmax rows",
              max_error(probs, logits.softmax(1).to_vector<float>()));

  // [snippet: traffic]
  // What the emulator can measure without a GPU: how many floats each version reads
  // from global memory (the launch record counts every read through a Span).
  namespace rec = kindling::cuda::emu;
  std::printf("\n== global-memory reads of c = a @ b, n x n matrices ==\n");
  std::printf("%5s %14s %14s %14s %12s\n", "n", "v1 naive", "v2 tiles",
              "v3 registers", "v1 / v2");
  std::ofstream csv("ch08_traffic.csv");
  csv << "n,version,global_reads,barriers\n";
  for (int n : {16, 32, 64, 128}) {
    const kd::Tensor sa = kd::randn({n, n}), sb = kd::randn({n, n});
    std::vector<float> c(std::size_t(n) * n);
    std::uint64_t reads[3] = {};
    for (int v = 0; v < 3; ++v) {
      rec::clear_launch_log();
      versions[v].second(sa.data_ptr<float>(), sb.data_ptr<float>(), c.data(), n, n, n);
      std::uint64_t barriers = 0;
      for (const rec::LaunchRecord& r : rec::launch_log()) {
        reads[v] += r.global_reads;
        barriers += r.barriers;
      }
      csv << n << ",v" << v + 1 << "," << reads[v] << "," << barriers << "\n";
    }
    std::printf("%5d %14llu %14llu %14llu %11.1fx\n", n,
                (unsigned long long)reads[0], (unsigned long long)reads[1],
                (unsigned long long)reads[2], double(reads[0]) / double(reads[1]));
  }
  // [end]
}
