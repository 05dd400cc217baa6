// The GEMM behind every matrix product, and the thread policy of kindling/tensor/threads.hpp.
//
// Two libraries, chosen per shape by measurement (float32, 1 thread, on this project's machines, CPU
// time of interleaved repetitions; bench/matmul.cpp prints the library's products against raw BLAS):
//   * oneDNN's dnnl_sgemm for the layers' products -- from ~32k multiply-adds (16x16x128) up to ~67M.
//     On SimpleNet's and the CNN's shapes ([32, 784] x [784, 128], [64, 3136] x [3136, 128], the
//     convolutions' [64, 288] x [288, 196], ...) it took 10-40 % less time than OpenBLAS, mostly
//     because it packs less for skinny matrices.
//   * OpenBLAS below (a 16x16x16 product: 0.6 us vs oneDNN's 0.9 us, whose set-up dominates there),
//     above (512^3: OpenBLAS 5 % faster), for float64, and when Kindling is built without oneDNN.
//     "Above" holds only where both libraries use the same vector instructions: on a CPU with AVX-512
//     (Zen 4/5, Intel since Skylake-SP) OpenBLAS 0.3.21 may still run its AVX2 kernels (it takes a Zen
//     4/5 for "Haswell") while oneDNN runs AVX-512 ones, and oneDNN is ~2x faster at every size (Zen 5,
//     1 thread: 512^3 1.5 ms vs 2.9 ms; ResNet-18's batched convolution products, [64, 576] x [576,
//     4096] and up, 1.7 ms vs 3.4 ms). There oneDNN takes the large products too.
//
// Threads. oneDNN runs on OpenMP; OpenBLAS on its own pthreads. Both default to every core, and both
// keep an idle thread *spinning* for a while after a product: between the small products of a
// training step, that second thread only steals the core the first one needs (a learner's ch05_train
// spent ~28 % of its time in sched_yield). So Kindling pins both: to the count the user asked for
// (set_num_threads, KINDLING_NUM_THREADS, OPENBLAS_NUM_THREADS), or by default one thread below ~67M
// multiply-adds and every core above, where a product takes long enough to share.
#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <type_traits>

#include "gemm.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/threads.hpp"

#ifdef KINDLING_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int);
}
#endif

extern "C" void openblas_set_num_threads(int num_threads);

namespace kindling {
namespace {

#ifdef KINDLING_HAVE_DNNL
constexpr double kDnnlMin = 32768.0;         // multiply-adds: below, OpenBLAS (set-up dominates)
#endif
constexpr double kBig = 64.0 * 1024 * 1024;  // above, OpenBLAS, and by default every core

#ifdef KINDLING_HAVE_DNNL
/// The size below which oneDNN computes a float32 product: kBig, or no limit where oneDNN uses AVX-512
/// (see the top of this file). dnnl_cpu_isa_t's values are bit sets: avx512_core (0x27) holds avx2 (0x7).
double dnnl_max_macs() {
  static const double max = [] {
    const int isa = static_cast<int>(dnnl_get_effective_cpu_isa());
    return (isa & 0x27) == 0x27 ? 1e300 : kBig;
  }();
  return max;
}
#endif

/// A positive integer from the environment, or 0.
int env_threads(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return (*end == '\0' && n > 0 && n <= 4096) ? static_cast<int>(n) : 0;
}

int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::atomic<int> g_threads{-1};  // -1: not read from the environment yet; 0: the default policy
std::atomic<int> g_openblas_threads{0};

int configured() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n < 0) {
    n = env_threads("KINDLING_NUM_THREADS");
    if (n == 0) n = env_threads("OPENBLAS_NUM_THREADS");
    int expected = -1;
    g_threads.compare_exchange_strong(expected, n);
    n = g_threads.load();
  }
  return n;
}

/// OpenBLAS's thread count is global: set it only when it changes.
void openblas_threads(int n) {
  if (g_openblas_threads.load(std::memory_order_relaxed) != n) {
    openblas_set_num_threads(n);
    g_openblas_threads.store(n, std::memory_order_relaxed);
  }
}

/// The threads one product of `macs` multiply-adds gets.
int threads_for(double macs) {
  const int n = configured();
  return n > 0 ? n : (macs >= kBig ? hardware_threads() : 1);
}

template <class T, class Blas>
void run(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
         const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, Blas blas) {
  if (m <= 0 || n <= 0) return;
  const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const int threads = threads_for(macs);
#ifdef KINDLING_HAVE_DNNL
  if constexpr (std::is_same_v<T, float>) {
    if (k > 0 && macs >= kDnnlMin && macs < dnnl_max_macs()) {
      // omp_set_num_threads sets the calling thread's count (each DataLoader worker has its own).
      if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
      if (dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) == dnnl_success)
        return;
      // A status other than success means oneDNN refused the arguments: OpenBLAS computes it instead.
    }
  }
#endif
  openblas_threads(threads);
  blas(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
       static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
       static_cast<int>(ldc));
}

}  // namespace

void set_num_threads(int n) {
  if (n < 1) {
    throw ValueError("set_num_threads: the number of threads must be at least 1, got " + std::to_string(n) +
                     ". Hint: 1 is the fastest for small models on a shared machine.");
  }
  g_threads.store(n);
}

int get_num_threads() { return configured(); }

namespace detail {

int gemm_threads(double macs, bool for_openmp) {
  const int threads = threads_for(macs);
#ifdef KINDLING_HAVE_DNNL
  if (for_openmp && omp_get_max_threads() != threads) omp_set_num_threads(threads);
#else
  (void)for_openmp;
#endif
  return threads;
}

void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
          std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  run(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, cblas_sgemm);
}

void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
          std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  run(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, cblas_dgemm);
}

}  // namespace detail
}  // namespace kindling
