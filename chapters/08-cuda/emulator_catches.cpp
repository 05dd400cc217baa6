// Chapter 8 — what the kernel emulator catches. Three kernels, each with a bug that a
// GPU would not report: an index past the end of a buffer, a barrier that some threads
// of the block never reach, and two threads racing on shared memory. Compiled by g++,
// kernel.hpp is the emulator: every access is checked, and the first problem stops the
// launch with a kindling::cuda::KernelError.
#include <kindling/cuda/kernel.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace kc = kindling::cuda;
using kc::emulated::SharedArray;
using kc::emulated::Span;

// [snippet: no-guard]
__global__ void scale(Span<const float> x, Span<float> y, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = a * x[i];  // missing: if (i < x.size())
}
// [end]

// [snippet: early-return]
__global__ void shift_left(Span<const float> x, Span<float> y) {
  __shared__ SharedArray<float, 256> buf;
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i >= x.size()) return;  // these threads never reach the barrier
  buf[t] = x[i];
  __syncthreads();
  y[i] = t + 1 < 256 ? static_cast<float>(buf[t + 1]) : 0.0f;
}
// [end]

// [snippet: race]
__global__ void block_sum(Span<const float> x, Span<float> out) {
  __shared__ SharedArray<float, 256> buf;
  int t = threadIdx.x;
  buf[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (t < s) buf[t] += buf[t + s];
    // missing: __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}
// [end]

// Runs a launch and prints what the emulator reported, wrapped to fit the page.
template <class Launch>
void report(const char* title, Launch&& launch) {
  std::printf("%s\n", title);
  try {
    launch();
    std::printf("  no problem found\n");
  } catch (const kc::KernelError& e) {
    std::string line;
    for (std::string word; const char c : std::string(e.what()) + " ") {
      if (c != ' ') {
        word += c;
        continue;
      }
      if (line.size() + word.size() > 82) {
        std::printf("  %s\n", line.c_str());
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
      word.clear();
    }
    std::printf("  %s\n", line.c_str());
  }
}

int main() {
  const int n = 1000;
  std::vector<float> x(1024, 1.0f), y(1024), sums(4);
  Span<const float> xs(x.data(), n, "x");
  Span<float> ys(y.data(), n, "y");
  // [snippet: launch]
  report("1. scale<<<4, 256>>> over 1000 elements:",
         [&] { KD_LAUNCH(scale, dim3(4), dim3(256), xs, ys, 2.0f); });
  // [end]
  report("2. shift_left<<<4, 256>>> over 1000 elements:",
         [&] { KD_LAUNCH(shift_left, dim3(4), dim3(256), xs, ys); });
  report("3. block_sum<<<4, 256>>>:", [&] {
    KD_LAUNCH(block_sum, dim3(4), dim3(256), Span<const float>(x.data(), 1024, "x"),
              Span<float>(sums.data(), 4, "out"));
  });
}
