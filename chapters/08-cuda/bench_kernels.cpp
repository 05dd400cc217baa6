// Chapter 8 — the kernels' speed, on a GPU: matmul v1, v2, v3 against cuBLAS at
// 4096 x 4096, and the elementwise kernel against the device's copy bandwidth. Each
// result is checked against cuBLAS (matmul) or the CPU (elementwise) as it is timed.
// Prints BENCH lines with ratio = reference time / kernel time (1.0: as fast as cuBLAS
// or as a plain device-to-device copy). `--quick` runs small sizes (a smoke test).
// book: skip-run
#include <kindling/cuda.hpp>
#include <kindling/kindling.hpp>
#include <kindling/version.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#if KINDLING_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

namespace kd = kindling;
namespace kc = kindling::cuda;

#if KINDLING_HAVE_CUDA
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Milliseconds per call of fn, timed with CUDA events after one warm-up call.
template <class Fn>
double time_ms(Fn&& fn, int reps) {
  fn();
  check(cudaDeviceSynchronize(), "warm-up");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int i = 0; i < reps; ++i) fn();
  cudaEventRecord(stop);
  check(cudaEventSynchronize(stop), "timing");
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / reps;
}

std::vector<float> download(const float* d, std::size_t n) {
  std::vector<float> h(n);
  check(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost), "download");
  return h;
}

}  // namespace
#endif

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (!kc::is_available()) {
    std::printf("no GPU, nothing to time: %s\n", kc::unavailable_reason().c_str());
    return 0;
  }
#if KINDLING_HAVE_CUDA
  const kc::DeviceProperties p = kc::get_device_properties(0);
  std::printf("GPU: %s (compute capability %d.%d, %zu MiB)\n", p.name.c_str(), p.major,
              p.minor, p.total_memory >> 20);
  const int n = quick ? 512 : 4096, reps = quick ? 2 : 10;
  kd::manual_seed(0);
  const kd::Tensor a = kd::randn({n, n}), b = kd::randn({n, n});
  const kd::Tensor da = a.to(kd::Device::parse("cuda")),
                   db = b.to(kd::Device::parse("cuda"));
  float* dc = nullptr;
  float* dref = nullptr;
  check(cudaMalloc(&dc, sizeof(float) * n * n), "cudaMalloc");
  check(cudaMalloc(&dref, sizeof(float) * n * n), "cudaMalloc");
  const float* A = da.data_ptr<float>();
  const float* B = db.data_ptr<float>();

  // cuBLAS is column-major: the row-major C = A B is the column-major C^T = B^T A^T.
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float one = 1.0f, zero = 0.0f;
  auto cublas = [&] {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero,
                dref, n);
  };
  const double t_ref = time_ms(cublas, reps);
  const std::vector<float> ref = download(dref, std::size_t(n) * n);
  const double flops = 2.0 * n * n * n;
  std::printf("BENCH G1 cublas %d: %.2f ms, %.1f TFLOP/s\n", n, t_ref,
              flops / t_ref / 1e9);

  using Matmul = void (*)(const float*, const float*, float*, int, int, int);
  const std::pair<const char*, Matmul> versions[] = {{"matmul_v1", kc::gpu::matmul_v1},
                                                     {"matmul_v2", kc::gpu::matmul_v2},
                                                     {"matmul_v3", kc::gpu::matmul_v3}};
  for (const auto& [name, version] : versions) {
    // A lambda may not capture a structured binding (clang 14): copy it first.
    const Matmul matmul = version;
    const double t = time_ms([&] { matmul(A, B, dc, n, n, n); }, reps);
    const std::vector<float> got = download(dc, std::size_t(n) * n);
    double err = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      err = std::max(err, double(std::abs(got[i] - ref[i])));
    std::printf(
        "BENCH G1 %s %d: ratio=%.3f (%.2f ms, %.1f TFLOP/s vs cuBLAS %.2f ms; "
        "max error %.1e)\n",
        name, n, t_ref / t, t, flops / t / 1e9, t_ref, err);
  }
  cublasDestroy(handle);

  // Elementwise a + b over 2^26 floats (768 MiB moved) against a device-to-device copy
  // of the same number of bytes, the practical peak of the memory.
  const std::int64_t m = quick ? (1 << 20) : (1 << 26);
  const kd::Tensor x = kd::randn({m}), y = kd::randn({m});
  const kd::Tensor dx = x.to(kd::Device::parse("cuda")),
                   dy = y.to(kd::Device::parse("cuda"));
  float* dz = nullptr;
  check(cudaMalloc(&dz, sizeof(float) * m * 2), "cudaMalloc");
  kc::BinaryLayout L;
  L.ndim = 1;
  L.sizes[0] = m;
  L.a_strides[0] = L.b_strides[0] = 1;
  const double t_add = time_ms(
      [&] {
        kc::gpu::binary(kc::BinaryOp::Add, dx.data_ptr<float>(), m,
                        dy.data_ptr<float>(), m, dz, m, L);
      },
      reps);
  const std::vector<float> z = download(dz, std::size_t(m));
  const std::vector<float> want = (x + y).to_vector<float>();
  if (z != want) throw std::runtime_error("elementwise add disagrees with the CPU");
  // The copy reads and writes 2 * 4m bytes, like add's 3 * 4m bytes it is all memory
  // traffic.
  const double t_copy = time_ms(
      [&] {
        cudaMemcpy(dz, dx.data_ptr<float>(), sizeof(float) * m,
                   cudaMemcpyDeviceToDevice);
      },
      reps);
  const double gbs_add = 3.0 * 4 * m / t_add / 1e6,
               gbs_copy = 2.0 * 4 * m / t_copy / 1e6;
  std::printf(
      "BENCH G1 elementwise add %lld floats: ratio=%.3f (%.0f GB/s vs copy %.0f "
      "GB/s)\n",
      static_cast<long long>(m), gbs_add / gbs_copy, gbs_add, gbs_copy);
  cudaFree(dc);
  cudaFree(dref);
  cudaFree(dz);
#endif
  return 0;
}
