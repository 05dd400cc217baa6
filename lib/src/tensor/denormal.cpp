// torch.set_flush_denormal: the two bits of the x86-64 SSE control register (MXCSR) that make
// denormals zero -- FTZ (results) and DAZ (inputs). Every float32/float64 SSE and AVX instruction of
// the thread obeys them, the library's loops and the BLAS kernels alike.
#include "kindling/tensor/denormal.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#endif

namespace kindling {

#if defined(__x86_64__) || defined(_M_X64)
namespace {
constexpr unsigned kFlushToZero = 0x8000;      // FTZ: a denormal result is written as zero
constexpr unsigned kDenormalsAreZero = 0x0040;  // DAZ: a denormal input is read as zero
constexpr unsigned kBoth = kFlushToZero | kDenormalsAreZero;
}  // namespace

bool set_flush_denormal(bool on) {
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(on ? (csr | kBoth) : (csr & ~kBoth));
  return true;
}

bool flush_denormal() { return (_mm_getcsr() & kBoth) == kBoth; }
#else
bool set_flush_denormal(bool) { return false; }
bool flush_denormal() { return false; }
#endif

}  // namespace kindling
