// The 16-bit matrix products: bfloat16 and float16 operands, float32 accumulation, one rounding.
//
// What PyTorch's CPU bfloat16 matmul means: every product a[i,l]·b[l,j] of two bfloat16 numbers is
// exact in float32 (8 + 8 significant bits fit in 24), the sum runs in float32, and the result is
// rounded to bfloat16 once. Two ways to compute it here:
//   * oneDNN's matmul primitive, where the CPU has bfloat16 instructions (AVX512_BF16's vdpbf16ps
//     multiplies pairs of bfloat16 and adds them into float32 lanes; AMX on newer Intel parts). It
//     reads half the bytes of a float32 GEMM and, on Zen 4, runs about twice as fast.
//   * Everywhere else (float16 always; bfloat16 on a CPU without those instructions, where oneDNN
//     2.6 refuses to build a bfloat16 matmul at all): widen both operands to float32 -- exactly, a
//     16-bit shift for bfloat16 -- run the float32 GEMM of gemm.cpp and round the result once. The
//     values are the same; the speed is the float32 GEMM's plus the conversions.
// bfloat16_gemm_backend() says which one runs; KINDLING_BF16_GEMM=fallback forces the second (to
// compare the two on a CPU that has both).
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "gemm.hpp"
#include "kindling/tensor/autocast_mode.hpp"

#ifdef KINDLING_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace kindling {
namespace {

/// Widens a rows x cols matrix (leading dimension ld) into dense float32 rows.
template <class T> void widen(const T* src, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* dst) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* s = src + r * ld;
    float* d = dst + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) d[c] = static_cast<float>(s[c]);
  }
}

/// The portable path: float32 copies of the operands, the float32 GEMM, one rounding per element.
/// A bias starts every row of the float32 result (beta = 1), so it is rounded with the product.
template <class T>
void widened_gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
                  const T* b, std::int64_t ldb, T* c, std::int64_t ldc, const T* bias) {
  // The stored matrices: A is [m, k] as stored, or [k, m] read transposed (likewise B), so each is
  // widened row by row, in the order its memory runs, and the GEMM applies the transposes.
  const std::int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  const std::int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  // One buffer per thread, reused: a training step's products would otherwise allocate three
  // float32 matrices each.
  thread_local std::vector<float> buffer;
  const auto need = static_cast<std::size_t>(a_rows * a_cols + b_rows * b_cols + m * n);
  if (buffer.size() < need) buffer.resize(need);
  float* wa = buffer.data();
  float* wb = wa + a_rows * a_cols;
  float* wc = wb + b_rows * b_cols;
  widen(a, a_rows, a_cols, lda, wa);
  widen(b, b_rows, b_cols, ldb, wb);
  if (bias)
    for (std::int64_t i = 0; i < m; ++i) widen(bias, 1, n, n, wc + i * n);
  detail::gemm(ta, tb, m, n, k, 1.0f, wa, a_cols, wb, b_cols, bias ? 1.0f : 0.0f, wc, n);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) c[i * ldc + j] = T(wc[i * n + j]);  // rounds to nearest, ties to even
}

bool fallback_forced() {
  const char* v = std::getenv("KINDLING_BF16_GEMM");
  return v && std::strcmp(v, "fallback") == 0;
}

#ifdef KINDLING_HAVE_DNNL
namespace dn = dnnl;
using dt = dn::memory::data_type;

/// A bfloat16 matmul primitive for one shape and layout, created once and reused: creating one
/// costs tens of microseconds (oneDNN picks and generates a kernel), as much as a small product.
/// Its memory objects and argument map are made once too, and only pointed at each call's data
/// (set_data_handle): making them per call allocated and cost ~5 % of a SimpleNet autocast step.
struct Bf16Matmul {
  dn::memory::desc a, b, c;
  dn::matmul prim;
  dn::memory ma, mb, mc, mbias;
  std::unordered_map<int, dn::memory> args;
};

dn::engine& cpu_engine() {
  static dn::engine engine(dn::engine::kind::cpu, 0);
  return engine;
}

/// The memory descriptor of op(X) [rows, cols] stored with leading dimension ld.
dn::memory::desc matrix_desc(std::int64_t rows, std::int64_t cols, bool trans, std::int64_t ld) {
  return dn::memory::desc({rows, cols}, dt::bf16, trans ? dn::memory::dims{1, ld} : dn::memory::dims{ld, 1});
}

/// The implementation oneDNN picks for bfloat16 here, or "" when it has none worth using: oneDNN
/// 2.6 builds bfloat16 matmuls only on AVX-512 CPUs, and its reference kernel ("ref:any") is a
/// plain loop, far slower than widening to float32.
const std::string& dnnl_implementation() {
  static const std::string name = [] {
    try {
      const dn::matmul::primitive_desc pd(
          dn::matmul::desc(matrix_desc(32, 64, false, 64), matrix_desc(64, 32, false, 32),
                           matrix_desc(32, 32, false, 32)),
          cpu_engine());
      std::string impl = pd.impl_info_str();
      return impl.rfind("ref", 0) == 0 ? std::string() : impl;
    } catch (const dn::error&) {
      return std::string();
    }
  }();
  return name;
}

/// Runs the product on oneDNN; false when it refused (the caller then widens).
/// A bias is the primitive's own bias argument ([1, n], broadcast over the rows): oneDNN adds it to
/// the float32 sums before it rounds them.
bool dnnl_gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const BFloat16* a,
               std::int64_t lda, const BFloat16* b, std::int64_t ldb, BFloat16* c, std::int64_t ldc,
               const BFloat16* bias) {
  using Key = std::tuple<bool, bool, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                         std::int64_t, bool>;
  // Per thread: primitives may be executed from several threads, but the map is not shared.
  thread_local std::map<Key, Bf16Matmul> cache;
  thread_local dn::stream stream(cpu_engine());
  const Key key{ta, tb, m, n, k, lda, ldb, ldc, bias != nullptr};
  auto it = cache.find(key);
  try {
    if (it == cache.end()) {
      if (cache.size() >= 256) cache.clear();  // a program that multiplies many shapes: start over
      Bf16Matmul mm{matrix_desc(m, k, ta, lda), matrix_desc(k, n, tb, ldb), matrix_desc(m, n, false, ldc),
                    {}, {}, {}, {}, {}, {}};
      const dn::memory::desc bias_desc = matrix_desc(1, n, false, n);
      mm.prim = dn::matmul(dn::matmul::primitive_desc(
          bias ? dn::matmul::desc(mm.a, mm.b, bias_desc, mm.c) : dn::matmul::desc(mm.a, mm.b, mm.c), cpu_engine()));
      mm.ma = dn::memory(mm.a, cpu_engine(), DNNL_MEMORY_NONE);
      mm.mb = dn::memory(mm.b, cpu_engine(), DNNL_MEMORY_NONE);
      mm.mc = dn::memory(mm.c, cpu_engine(), DNNL_MEMORY_NONE);
      mm.args = {{DNNL_ARG_SRC, mm.ma}, {DNNL_ARG_WEIGHTS, mm.mb}, {DNNL_ARG_DST, mm.mc}};
      if (bias) {
        mm.mbias = dn::memory(bias_desc, cpu_engine(), DNNL_MEMORY_NONE);
        mm.args.emplace(DNNL_ARG_BIAS, mm.mbias);
      }
      it = cache.emplace(key, std::move(mm)).first;
    }
    detail::gemm_threads(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k), true);
    Bf16Matmul& mm = it->second;
    // oneDNN takes non-const pointers but only reads the sources.
    mm.ma.set_data_handle(const_cast<BFloat16*>(a));
    mm.mb.set_data_handle(const_cast<BFloat16*>(b));
    mm.mc.set_data_handle(c);
    if (bias) mm.mbias.set_data_handle(const_cast<BFloat16*>(bias));
    mm.prim.execute(stream, mm.args);
    stream.wait();
    return true;
  } catch (const dn::error&) {
    return false;
  }
}
#endif

bool use_dnnl() {
#ifdef KINDLING_HAVE_DNNL
  static const bool yes = !fallback_forced() && !dnnl_implementation().empty();
  return yes;
#else
  return false;
#endif
}

}  // namespace

std::string bfloat16_gemm_backend() {
#ifdef KINDLING_HAVE_DNNL
  if (use_dnnl()) return "oneDNN matmul (" + dnnl_implementation() + ")";
  if (fallback_forced()) return "float32 GEMM of widened operands (KINDLING_BF16_GEMM=fallback)";
  return "float32 GEMM of widened operands (no bfloat16 matmul in oneDNN for this CPU)";
#else
  return "float32 GEMM of widened operands (Kindling built without oneDNN)";
#endif
}

namespace detail {

void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const BFloat16* a,
          std::int64_t lda, const BFloat16* b, std::int64_t ldb, BFloat16* c, std::int64_t ldc,
          const BFloat16* bias) {
  if (m <= 0 || n <= 0) return;
#ifdef KINDLING_HAVE_DNNL
  if (k > 0 && use_dnnl() && dnnl_gemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, bias)) return;
#endif
  widened_gemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, bias);
}

void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const Half* a,
          std::int64_t lda, const Half* b, std::int64_t ldb, Half* c, std::int64_t ldc, const Half* bias) {
  if (m <= 0 || n <= 0) return;
  widened_gemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, bias);
}

}  // namespace detail
}  // namespace kindling
