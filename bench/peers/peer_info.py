"""What the Python peers say about themselves in their "ready" line: gemm=<libraries:isa>, the GEMM
libraries PyTorch loaded in this process and the instruction set each chose on this CPU, in the words
of bench/peers/backend_info.hpp (the C++ side): "openblas-0.3.21:Haswell,onednn:avx512_core_bf16"."""
import ctypes
import os

_ONEDNN_ISA = {0x1: "sse41", 0x3: "avx", 0x7: "avx2", 0xf: "avx512_mic", 0x1f: "avx512_mic_4ops",
               0x27: "avx512_core", 0x67: "avx512_core_vnni", 0xe7: "avx512_core_bf16",
               0x3e7: "avx512_core_amx", 0x407: "avx2_vnni"}


def gemm_backends():
    """Call after `import torch`: dlopen of an already loaded library returns that library."""
    parts = []
    try:
        blas = ctypes.CDLL("libopenblas.so.0", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        blas.openblas_get_corename.restype = ctypes.c_char_p
        blas.openblas_get_config.restype = ctypes.c_char_p
        version = blas.openblas_get_config().decode().split()[1]
        parts.append(f"openblas-{version}:{blas.openblas_get_corename().decode()}")
    except (OSError, AttributeError, IndexError):
        pass
    try:
        dnnl = ctypes.CDLL("libdnnl.so.2", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        isa = dnnl.dnnl_get_effective_cpu_isa()
        parts.append("onednn:" + _ONEDNN_ISA.get(isa, hex(isa)))
    except (OSError, AttributeError):
        pass
    return ",".join(parts) or "unknown"


def flush_denormal_if_asked():
    """Flush denormals (torch.set_flush_denormal(True)) when the benchmark asks for it:
    KINDLING_BENCH_FLUSH_DENORMAL=1 is the tuned setting (bench/bench_util.hpp: PeerSettings)."""
    import torch
    if os.environ.get("KINDLING_BENCH_FLUSH_DENORMAL") == "1":
        torch.set_flush_denormal(True)


def flush_denormal_state():
    """"on" when this thread flushes denormals: half of the smallest normal float32 comes out as 0."""
    import torch
    return "on" if float(torch.tensor([1.1754944e-38]) * 0.5) == 0.0 else "off"
