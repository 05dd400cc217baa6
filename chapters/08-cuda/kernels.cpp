// Chapter 8 — every version of the chapter's kernels against the CPU library, on the
// kernel emulator. The emulator checks correctness (every index, every barrier, every
// shared-memory access), never speed: bench_kernels.cpp times the same kernels on a
// GPU.
#include <kindling/kindling.hpp>
#include <kindling/cuda.hpp>

#include <cmath>
#include <cstdio>
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
}
