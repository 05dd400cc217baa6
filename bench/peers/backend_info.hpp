#pragma once
// Which GEMM libraries this process has loaded, and which instruction set each of them chose on this
// CPU: "openblas-0.3.21:Haswell onednn:avx512_core_bf16". Shared by the benchmarks (bench_util.hpp) and
// the LibTorch peers (C++17, no Kindling), so both sides of a BENCH line are described the same way.
//
// Looked up at run time (dlsym), not linked: a process has these libraries only if something it links
// needs them (Kindling's products go to oneDNN and OpenBLAS by shape, lib/src/tensor/gemm.cpp;
// LibTorch's float32 products go to the system BLAS, its convolutions and bfloat16 products may go to
// its oneDNN). OpenBLAS's core name is the kernel set it picked for this CPU (0.3.21 takes a Zen 4/5 for
// "Haswell", AVX2 only); oneDNN's effective ISA is the widest instruction set its kernels may use.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <string>

namespace peers {

inline std::string onednn_isa_name(int isa) {
  switch (isa) {  // dnnl_cpu_isa_t (oneDNN 2.x, oneapi/dnnl/dnnl_types.h)
    case 0x1: return "sse41";
    case 0x3: return "avx";
    case 0x7: return "avx2";
    case 0xf: return "avx512_mic";
    case 0x1f: return "avx512_mic_4ops";
    case 0x27: return "avx512_core";
    case 0x67: return "avx512_core_vnni";
    case 0xe7: return "avx512_core_bf16";
    case 0x3e7: return "avx512_core_amx";
    case 0x407: return "avx2_vnni";
    default: return "isa-0x" + [isa] {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%x", isa);
      return std::string(buf);
    }();
  }
}

/// "openblas-<version>:<core> onednn:<isa>", each part only when that library is loaded here.
inline std::string gemm_backends() {
  std::string out;
  using Str = char* (*)();
  if (auto core = reinterpret_cast<Str>(dlsym(RTLD_DEFAULT, "openblas_get_corename"))) {
    std::string version;
    if (auto config = reinterpret_cast<Str>(dlsym(RTLD_DEFAULT, "openblas_get_config"))) {
      const std::string c = config();  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
      const auto sp = c.find(' ');
      if (sp != std::string::npos) version = "-" + c.substr(sp + 1, c.find(' ', sp + 1) - sp - 1);
    }
    out += "openblas" + version + ":" + core();
  }
  using Isa = int (*)();
  if (auto isa = reinterpret_cast<Isa>(dlsym(RTLD_DEFAULT, "dnnl_get_effective_cpu_isa"))) {
    if (!out.empty()) out += ",";
    out += "onednn:" + onednn_isa_name(isa());
  }
  return out.empty() ? "unknown" : out;
}

/// Denormal flushing (torch.set_flush_denormal, kd::set_flush_denormal): this thread's FTZ and DAZ bits
/// of MXCSR, "on" when both are set. On an Intel core every operation on a denormal float takes a
/// microcode assist; Adam's running averages of weights whose gradient stays zero decay through the
/// denormal range, and on SimpleNet's step that cost 135 of 409 us (an Intel Xeon with AVX-512; a
/// Zen 3 loses ~10 us). Both sides of a tuned line flush, and each says so on the line (ftz=).
inline const char* flush_denormal_state() {
#if defined(__x86_64__)
  return (_mm_getcsr() & 0x8040u) == 0x8040u ? "on" : "off";
#else
  return "off";
#endif
}

/// A LibTorch peer flushes denormals when the benchmark asks (KINDLING_BENCH_FLUSH_DENORMAL=1, the
/// tuned setting): what at::globalContext().setFlushDenormal(true) does, the same two bits.
inline void flush_denormal_if_asked() {
#if defined(__x86_64__)
  const char* e = std::getenv("KINDLING_BENCH_FLUSH_DENORMAL");
  if (e && std::strcmp(e, "1") == 0) _mm_setcsr(_mm_getcsr() | 0x8040u);
#endif
}

}  // namespace peers
