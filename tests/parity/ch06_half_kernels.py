# float16/bfloat16 kernels of the layers and ops a mixed-precision model meets outside autocast's
# float32 list: computed in float32 and rounded once, forward and backward; and the losses on
# 16-bit input. bfloat16 runs PyTorch 1.13's own CPU kernels; its CPU has no float16 version of
# gelu, silu, elu, softplus, leaky_relu, topk or interpolate ("not implemented for 'Half'"), so
# float16 cases compare with the float32 computation rounded once (in_float32 below), which is
# what PyTorch's CUDA kernels compute. The C++ twin of each case is in ch06_half_kernels.cpp.
import torch.nn.functional as F

H, B = dict(dtype="float16"), dict(dtype="bfloat16")


def in_float32(f):
    """f computed in float32 and rounded once to the input's dtype, for float16; PyTorch's own
    kernel for every other dtype. Gradients flow back through the widening (exact) and are
    rounded once to float16."""
    def g(*xs):
        if xs[0].dtype != torch.float16:
            return f(*xs)
        out = f(*[x.float() if x.is_floating_point() else x for x in xs])
        return tuple(o.half() if o.is_floating_point() else o for o in out) if isinstance(out, tuple) \
            else out.half()
    return g


def widened(f):
    """f computed in float32 and rounded once to the input's dtype, for both 16-bit dtypes."""
    return lambda x: f(x.float()).to(x.dtype)


# bfloat16's kernels compute in float32 too, but a backward is several bfloat16 ops in places
# (PyTorch's GELU backward rounds Φ and φ before combining): a few bfloat16 ulps (2^-8) apart.
BF_TOL = dict(rtol=2e-2, atol=1e-2)
for tag, D in [("half", H), ("bfloat16", B)]:
    tol = BF_TOL if tag == "bfloat16" else dict(rtol=4e-3, atol=1e-3)
    case(f"{tag}/gelu", in_float32(F.gelu), grad=True, x=randn(4, 6, scale=2, **D), **tol)
    case(f"{tag}/gelu-tanh", in_float32(lambda x: F.gelu(x, approximate="tanh")), grad=True,
         x=randn(4, 6, scale=2, **D), **tol)
    case(f"{tag}/silu", in_float32(F.silu), grad=True, x=randn(4, 6, scale=2, **D), **tol)
    case(f"{tag}/elu", in_float32(F.elu), grad=True, x=randn(4, 6, scale=2, **D), **tol)
    case(f"{tag}/softplus", in_float32(F.softplus), grad=True, x=randn(4, 6, scale=2, **D), **tol)
    case(f"{tag}/leaky-relu", in_float32(lambda x: F.leaky_relu(x, 0.2)), grad=True, x=randn(4, 6, **D),
         **tol)
    case(f"{tag}/tril-triu", lambda x: (x.tril(), x.triu(1)), grad=True, x=randn(2, 4, 5, **D))
    case(f"{tag}/masked-fill", lambda x, m: x.masked_fill(m, -1.5), grad=True, x=randn(4, 5, **D),
         m=randint(0, 2, 4, 5, dtype="bool"))
    case(f"{tag}/gather", lambda x, i: x.gather(1, i), grad=True, x=randn(4, 5, **D),
         i=randint(0, 5, 4, 7))
    case(f"{tag}/sort", lambda x: torch.sort(x, 1, descending=True), grad=True, x=distinct(4, 6, **D))
    case(f"{tag}/topk", in_float32(lambda x: torch.topk(x, 3)), grad=True, x=distinct(4, 6, **D))
    case(f"{tag}/take-along-dim", lambda x, i: torch.take_along_dim(x, i, 0), grad=True,
         x=randn(4, 5, **D), i=randint(0, 4, 2, 5))
    case(f"{tag}/scatter", lambda x, i, s: x.scatter(1, i, s), grad=True, x=randn(3, 5, **D),
         i=value([[0, 2], [4, 1], [3, 3]], dtype="int64"), s=randn(3, 2, **D))
    # Several sources land on one position: the sums are float32 inside, one rounding.
    case(f"{tag}/scatter-add", lambda x, i, s: x.scatter_add(1, i, s), grad=True, x=randn(3, 5, **D),
         i=value([[0, 0, 0, 2], [4, 1, 4, 4], [3, 3, 3, 3]], dtype="int64"), s=randn(3, 4, **D), **tol)
    case(f"{tag}/interpolate-nearest", in_float32(lambda x: F.interpolate(x, scale_factor=2, mode="nearest")),
         grad=True, x=randn(1, 2, 3, 4, **D), **tol)
    # PyTorch's own bfloat16 bilinear kernel rounds its weights and partial sums to bfloat16 (0.025
    # off the float32 result rounded once, for inputs of size 2): both dtypes compare with the latter.
    case(f"{tag}/interpolate-bilinear", widened(lambda x: F.interpolate(x, size=(5, 7), mode="bilinear",
         align_corners=False)), grad=True, x=randn(1, 2, 3, 4, **D), **tol)
    case(f"{tag}/embedding-grad", lambda i, w: F.embedding(i, w), grad=True,
         i=value([[0, 2, 0], [3, 3, 1]], dtype="int64"), w=randn(4, 3, **D), **tol)

# Losses on bfloat16 input (PyTorch 1.13 has no float16 log_softmax on the CPU).
case("bfloat16/nll-loss", lambda x, t: F.nll_loss(x, t), grad=True, x=randn(5, 4, **B),
     t=value([0, 3, 1, 1, 2], dtype="int64"), **BF_TOL)
case("bfloat16/cross-entropy", lambda x, t: F.cross_entropy(x, t), grad=True, x=randn(5, 4, **B),
     t=value([0, 3, 1, 1, 2], dtype="int64"), **BF_TOL)
case("bfloat16/cross-entropy-none", lambda x, t: F.cross_entropy(x, t, reduction="none"), grad=True,
     x=randn(5, 4, **B), t=value([0, 3, 1, 1, 2], dtype="int64"), **BF_TOL)
# An empty target holds no class index: PyTorch skips its dtype check.
case("nll-loss/empty-float-target", lambda x, t: F.nll_loss(x, t, reduction="sum"), x=randn(0, 4), t=randn(0))
case("nll-loss/float-target", lambda x, t: F.nll_loss(x, t), x=randn(2, 4), t=randn(2), expect_error=True)
# linear with in_features = 0 on a batch of sequences: zeros plus the bias, and backward works.
case("linear/in-features-0", lambda x, w, b: F.linear(x, w, b), grad=True, x=randn(2, 3, 0), w=randn(4, 0),
     b=randn(4))
