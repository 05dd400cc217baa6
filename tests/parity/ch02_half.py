# float16 and bfloat16 parity: conversions bit for bit (every 16-bit pattern, every rounding
# case), type promotion, and the ops computed in float32 and rounded once.
# The C++ twin of each case is in ch02_half.cpp, same name.

# ---- inputs for the conversions -----------------------------------------------------------------
_all16 = np.arange(65536, dtype=np.uint32)
# Every float16 pattern (NaNs with payloads, infinities, subnormals, both zeros).
ALL_HALF = _all16.astype(np.uint16).view(np.float16)
# Every bfloat16 pattern, as the float32 it stands for, plus the float32s around it: one ulp
# below and above, the halfway points to the next bfloat16 (ties) and one ulp either side of them.
_bf = (_all16 << 16).astype(np.uint32)
_around = np.concatenate([_bf, _bf + 1, _bf - 1, _bf + 0x8000, _bf + 0x7FFF, _bf + 0x8001])
# The same around every float16, in float32: each float16 widened, the midpoints between
# neighbours (ties to even), and the float32s one ulp either side of each midpoint.
_h32 = ALL_HALF.astype(np.float32)
_fin = np.sort(_h32[np.isfinite(_h32)])
_mid = ((_fin[:-1].astype(np.float64) + _fin[1:]) / 2).astype(np.float32)
_midbits = _mid.view(np.uint32)
# Random float32 bit patterns (NaN payloads, huge and tiny values), and the edges of float16.
_rng = np.random.default_rng(14)
_random = _rng.integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32)
_edges = np.array([65504, 65519.996, 65520, 65536, 1e5, 2**-14, 2**-24, 2**-25, 2**-25 * 1.0000001,
                   2**-26, 5.96e-8, 1e-8, 0, -0.0, np.inf, -np.inf, np.nan, 1 / 3, 0.1],
                  dtype=np.float32)
F32 = np.concatenate([_around.view(np.float32), _h32, _mid, (_midbits + 1).view(np.float32),
                      (_midbits - 1).view(np.float32), _random.view(np.float32), _edges,
                      -_edges])


def bits(t):
    """The 16 bits of each element as int64 (float16/bfloat16 viewed as int16)."""
    return t.view(torch.int16).long() & 0xFFFF


def nan_as(t, canonical):
    """The bits, with every NaN written `canonical`."""
    b = bits(t)
    return torch.where(torch.isnan(t), torch.full_like(b, canonical), b)


def bf16_bits(t):
    """bfloat16 bits with every NaN written 0x7FC0: PyTorch's contiguous float32 copy writes
    0xFFFF, its strided copy 0x7FC0 -- both are NaN, and Kindling writes c10's 0x7FC0."""
    return nan_as(t, 0x7FC0)


exact = dict(rtol=0, atol=0)
case("to-half/float32-all-rounding-cases", lambda x: bits(x.half()), x=value(F32), **exact)
case("to-bfloat16/float32-all-rounding-cases", lambda x: bf16_bits(x.bfloat16()), x=value(F32), **exact)
case("to-half/float64", lambda x: bits(x.half()), x=randn(5000, dtype="float64", scale=3e4), **exact)
case("to-half/float64-tiny", lambda x: bits(x.half()), x=randn(5000, dtype="float64", scale=1e-6),
     **exact)
case("to-bfloat16/float64", lambda x: bf16_bits(x.bfloat16()), x=randn(5000, dtype="float64", scale=1e30),
     **exact)
case("to-half/int64", lambda x: bits(x.half()), x=randint(-100000, 100000, 3000), **exact)
case("to-bfloat16/int64", lambda x: bf16_bits(x.bfloat16()), x=randint(-100000, 100000, 3000), **exact)
case("to-half/uint8-bool", lambda a, b: (bits(a.half()), bits(b.half())),
     a=randint(0, 256, 300, dtype="uint8"), b=randint(0, 2, 10, dtype="bool"), **exact)
case("half/all-patterns-to-float32", lambda x: x.float(), x=value(ALL_HALF, dtype="float16"), **exact)
case("half/all-patterns-to-float64", lambda x: x.double(), x=value(ALL_HALF, dtype="float16"), **exact)
case("half/all-patterns-to-bfloat16", lambda x: bf16_bits(x.bfloat16()),
     x=value(ALL_HALF, dtype="float16"), **exact)
# The NaN inputs arrive with different bits (see bf16_bits), so the NaNs they give are compared as NaN.
case("bfloat16/all-patterns-to-half", lambda x: nan_as(x.half(), 0x7E00), x=value(_bf.view(np.float32),
     dtype="bfloat16"), **exact)
case("bfloat16/all-patterns-to-float32", lambda x: x.float(), x=value(_bf.view(np.float32),
     dtype="bfloat16"), **exact)
case("half/transposed-copy", lambda x: bits(x.t().half()), x=randn(40, 30), **exact)
case("half/to-bool", lambda x: x.bool(), x=value([0.0, -0.0, 1e-7, np.nan, np.inf], dtype="float16"))

# ---- type promotion -------------------------------------------------------------------------------
H, B = dict(dtype="float16"), dict(dtype="bfloat16")
case("promote/half-bfloat16", lambda a, b: a + b, a=randn(3, **H), b=randn(3, **B))
case("promote/half-float32", lambda a, b: a + b, a=randn(3, **H), b=randn(3))
case("promote/bfloat16-float64", lambda a, b: a * b, a=randn(3, **B), b=randn(3, dtype="float64"))
case("promote/half-int64", lambda a, b: a + b, a=randn(3, **H), b=randint(-5, 5, 3))
case("promote/int64-0d-half", lambda a, b: a * b, a=randint(-5, 5, 3), b=randn(**H))
case("promote/half-0d-float32", lambda a, b: a + b, a=randn(3, **H), b=randn())
case("promote/bfloat16-0d-float64", lambda a, b: a + b, a=randn(3, **B), b=randn(dtype="float64"))
case("promote/half-0d-half-0d-float32", lambda a, b: a + b, a=randn(**H), b=randn())
case("promote/half-python-float", lambda a: a * 0.5, a=randn(4, **H))
case("promote/bfloat16-python-int", lambda a: a + 3, a=randn(4, **B))
case("promote/int64-python-float-stays-float32", lambda a: a * 0.5, a=randint(-5, 5, 3))
case("promote/cat-half-bfloat16", lambda a, b: torch.cat([a, b]), a=randn(2, **H), b=randn(3, **B))
case("promote/where-half-float32", lambda c, a, b: torch.where(c, a, b),
     c=randint(0, 2, 4, dtype="bool"), a=randn(4, **H), b=randn(4))

# ---- ops in float16 / bfloat16: float32 inside, one rounding -------------------------------------------
def in_float32(f):
    """f computed in float32 and rounded once to the input's dtype: the semantics of PyTorch's
    float16 kernels where they exist (CUDA). PyTorch 1.13's CPU has no float16 exp, log, tanh,
    sigmoid, relu, clamp or softmax ("not implemented for 'Half'"), so those cases compare with
    this; bfloat16 always runs PyTorch's own CPU kernel."""
    def g(x):
        if x.dtype != torch.float16:
            return f(x)
        return f(x.float()).half()
    return g


for tag, D in [("half", H), ("bfloat16", B)]:
    case(f"{tag}/add-broadcast", lambda a, b: a + b, a=randn(3, 1, **D), b=randn(4, **D))
    case(f"{tag}/sub-transposed", lambda a, b: a.t() - b, a=randn(4, 3, **D), b=randn(3, 4, **D))
    case(f"{tag}/mul", lambda a, b: a * b, a=randn(5, 6, **D), b=randn(5, 6, **D))
    case(f"{tag}/div", lambda a, b: a / b, a=randn(5, 6, **D), b=positive(5, 6, **D))
    big = [300.0, -300.0, 65504.0, 2.0] if tag == "half" else [1e20, -1e20, 3e38, 2.0]
    case(f"{tag}/overflow-to-inf", lambda a: a * a, a=value(big, **D))
    case(f"{tag}/0d", lambda a, b: a * b, a=randn(**D), b=randn(**D))
    case(f"{tag}/empty", lambda a, b: a + b, a=randn(0, 3, **D), b=randn(3, **D))
    case(f"{tag}/exp", in_float32(torch.exp), x=randn(4, 5, **D))
    case(f"{tag}/log", in_float32(torch.log), x=positive(4, 5, **D))
    case(f"{tag}/tanh", in_float32(torch.tanh), x=randn(4, 5, **D))
    case(f"{tag}/sigmoid", in_float32(torch.sigmoid), x=randn(4, 5, scale=4, **D))
    case(f"{tag}/relu", in_float32(torch.relu), x=randn(4, 5, **D))
    case(f"{tag}/neg-abs", lambda x: (-x, x.abs()), x=randn(4, 5, **D))
    case(f"{tag}/clamp", in_float32(lambda x: x.clamp(-0.5, 0.5)), x=randn(4, 5, **D))
    case(f"{tag}/pow-scalar", lambda x: x ** 2, x=randn(4, 5, **D))
    case(f"{tag}/compare", lambda a, b: (a < b, a == a), a=randn(6, **D), b=randn(6, **D))
    case(f"{tag}/sum", lambda x: x.sum(), x=randn(50, 40, **D))
    case(f"{tag}/sum-dim", lambda x: x.sum(0), x=randn(50, 40, **D))
    case(f"{tag}/mean-dim-keepdim", lambda x: x.mean(1, keepdim=True), x=randn(6, 70, **D))
    case(f"{tag}/max-min", lambda x: (x.max(), x.min(1)[0], x.min(1)[1]), x=distinct(5, 6, **D))
    case(f"{tag}/argmax", lambda x: x.argmax(1), x=distinct(5, 6, **D))
    case(f"{tag}/var-std", lambda x: (x.var(1), x.std()), x=randn(5, 30, **D))
    case(f"{tag}/softmax", in_float32(lambda x: x.softmax(-1)), x=randn(4, 10, scale=3, **D))
    case(f"{tag}/log-softmax", in_float32(lambda x: x.log_softmax(0)), x=randn(4, 10, scale=3, **D))
    case(f"{tag}/where", lambda c, a, b: torch.where(c, a, b), c=randint(0, 2, 4, dtype="bool"),
         a=randn(4, **D), b=randn(4, **D))
    case(f"{tag}/views-reshape-cat", lambda a, b: torch.cat([a.t().reshape(-1), b]),
         a=randn(3, 4, **D), b=randn(5, **D))

# Products accumulate in float32 and round once, as oneDNN's bfloat16 GEMM (and CUDA's) do. This
# PyTorch build (no MKL, generic BLAS) falls back to a loop that rounds every partial sum to
# bfloat16 (0.06 off for K = 16), and has no float16 matmul at all on the CPU ("addmm_impl_cpu_"
# not implemented for 'Half'): the expected values are the float32 product rounded once.
def mm32(a, b):
    return (a.float() @ b.float()).to(a.dtype)


for tag, D in [("half", H), ("bfloat16", B)]:
    case(f"{tag}/matmul", mm32, a=randn(8, 16, **D), b=randn(16, 5, **D))
    case(f"{tag}/matmul-transposed-batched", lambda a, b: mm32(a, b.transpose(-1, -2)),
         a=randn(2, 3, 16, **D), b=randn(2, 4, 16, **D))
    case(f"{tag}/matmul-grad", mm32, a=randn(4, 6, **D), b=randn(6, 3, **D), grad=True)
case("bfloat16/mul-sum-grad", lambda a, b: (a * b).sum(1), a=randn(3, 5, **B), b=randn(5, **B), grad=True)
# tanh's backward, grad * (1 - y^2), is three bfloat16 ops here (each rounds) and one fused kernel
# in PyTorch: a few ulps apart (one bfloat16 ulp is 2^-8 = 0.4 %).
case("bfloat16/exp-tanh-grad", lambda x: torch.tanh(x).exp(), x=randn(3, 4, **B), grad=True, rtol=3e-2)
case("half/add-mul-grad", lambda a, b: a * b + a, a=randn(3, 4, **H), b=randn(4, **H), grad=True)
