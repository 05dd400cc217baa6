# Chapter 3 parity: the nn layers' functional forms against torch.nn.functional 1.13, forward and
# backward, with the weights passed in as inputs so both sides use identical parameters.
# The C++ twin of each case is in ch03_nn.cpp, same name.
import torch.nn.functional as F

# ---- linear -------------------------------------------------------------------------------------
case("linear/basic", lambda x, w, b: F.linear(x, w, b), grad=True, x=randn(8, 5), w=randn(3, 5), b=randn(3))
case("linear/no-bias", lambda x, w: F.linear(x, w), grad=True, x=randn(4, 5), w=randn(2, 5))
case("linear/3d-input", lambda x, w, b: F.linear(x, w, b), grad=True, x=randn(2, 3, 5), w=randn(4, 5), b=randn(4))
case("linear/float64", lambda x, w, b: F.linear(x, w, b), grad=True,
     x=randn(6, 5, dtype="float64"), w=randn(3, 5, dtype="float64"), b=randn(3, dtype="float64"))
case("linear/bad-in-features", lambda x, w: F.linear(x, w), x=randn(4, 6), w=randn(2, 5), expect_error=True)

# ---- conv2d -------------------------------------------------------------------------------------
case("conv2d/basic", lambda x, w, b: F.conv2d(x, w, b), grad=True, x=randn(2, 3, 7, 6), w=randn(4, 3, 3, 3), b=randn(4))
case("conv2d/padding", lambda x, w, b: F.conv2d(x, w, b, padding=2), grad=True,
     x=randn(2, 1, 8, 8), w=randn(6, 1, 5, 5), b=randn(6))
case("conv2d/stride-dilation", lambda x, w: F.conv2d(x, w, None, stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
     grad=True, x=randn(2, 2, 9, 8), w=randn(3, 2, 3, 2))
case("conv2d/groups", lambda x, w, b: F.conv2d(x, w, b, groups=2, padding=1), grad=True,
     x=randn(2, 4, 5, 5), w=randn(6, 2, 3, 3), b=randn(6))
case("conv2d/transposed-input", lambda x, w: F.conv2d(x.transpose(2, 3), w), grad=True,
     x=randn(1, 2, 6, 5), w=randn(2, 2, 3, 3))
case("conv2d/float64", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), grad=True,
     x=randn(2, 3, 7, 7, dtype="float64"), w=randn(5, 3, 3, 3, dtype="float64"), b=randn(5, dtype="float64"))
# Stride 1 with the output as wide as the input: im2col/col2im copy each kernel tap as one flat range.
case("conv2d/flat-taps-cnn-shape", lambda x, w, b: F.conv2d(x, w, b, padding=1), grad=True,
     x=randn(3, 8, 14, 14), w=randn(16, 8, 3, 3), b=randn(16))
case("conv2d/flat-taps-rect-dilation", lambda x, w: F.conv2d(x, w, None, padding=(1, 4), dilation=(1, 2)), grad=True,
     x=randn(2, 3, 5, 9), w=randn(4, 3, 3, 5))
case("conv2d/flat-taps-one-row", lambda x, w: F.conv2d(x, w, None, padding=2), grad=True,
     x=randn(1, 2, 1, 6), w=randn(3, 2, 5, 5))
case("conv2d/channel-mismatch", lambda x, w: F.conv2d(x, w), x=randn(1, 2, 5, 5), w=randn(4, 3, 3, 3), expect_error=True)
# Small images share a GEMM, their columns side by side (conv2d.cpp: up to 1024 columns, so 16 images of
# 8x8 outputs): 35 images are two full groups of 16 and a last group of 3 -- flat taps, then strided with
# groups.
case("conv2d/batched-gemm-last-group-short", lambda x, w, b: F.conv2d(x, w, b, padding=1), grad=True,
     x=randn(35, 2, 8, 8), w=randn(3, 2, 3, 3), b=randn(3))
case("conv2d/batched-gemm-strided-groups", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=2), grad=True,
     x=randn(35, 4, 16, 16), w=randn(6, 2, 3, 3), b=randn(6))

# ---- pooling ------------------------------------------------------------------------------------
case("max_pool2d/basic", lambda x: F.max_pool2d(x, 2), grad=True, x=distinct(2, 3, 6, 6))
# Ties (the first maximum wins), NaN (the last NaN of a window wins), -0.0 next to 0.0, infinities: the 2x2 fast path.
_nan, _inf = float("nan"), float("inf")
case("max_pool2d/ties-nan", lambda x: F.max_pool2d(x, 2), grad=True,
     x=value([[[[1, 1, 0, 2], [1, 0, 2, 2], [_nan, 3, -1, -1], [3, _nan, -1, -1]],
               [[0.0, -0.0, -_inf, -_inf], [-0.0, 0.0, -_inf, -_inf], [5, _inf, 2, _nan], [_inf, 5, _nan, 2]]]]))
case("max_pool2d/ties-nan-general", lambda x: F.max_pool2d(x, 3, stride=1, padding=1), grad=True,
     x=value([[[[1, 1, 0, 2], [1, 0, 2, 2], [_nan, 3, -1, -1], [3, _nan, -1, -1]],
               [[0.0, -0.0, -_inf, -_inf], [-0.0, 0.0, -_inf, -_inf], [5, _inf, 2, _nan], [_inf, 5, _nan, 2]]]]))
case("max_pool2d/odd-size", lambda x: F.max_pool2d(x, 2), grad=True, x=distinct(1, 2, 7, 5))


def _pool_edges(n, c, h, w):
    # Inputs for the 2x2 fast path's vector kernel (8 windows at a time, a shorter last block per row):
    # ties everywhere (values -2..1), -0.0, +-inf and NaN scattered, windows that are all -inf, and
    # windows with two NaNs (the last one wins).
    def v(a, b, y, x):
        k = (a * 131 + b * 71 + y * 29 + x * 13) % 47
        if b == 1 and y < 2 and x < 4: return -_inf
        if b == 2 and y in (2, 3) and x in (4, 5) and (y + x) % 2 == 0: return _nan
        if k in (0, 1, 2, 3): return (_nan, -_inf, _inf, -0.0)[k]
        return float((a + 2 * b + 3 * y + 5 * x) % 4) - 2.0
    return value([[[[v(a, b, y, x) for x in range(w)] for y in range(h)] for b in range(c)] for a in range(n)])


# Rows of 19 windows (two full blocks of 8 and one of 3), and odd height and width (the last row and
# column are in no window; their gradient is 0).
case("max_pool2d/2x2-long-rows-edges", lambda x: F.max_pool2d(x, 2), grad=True, x=_pool_edges(2, 3, 6, 38))
case("max_pool2d/2x2-odd-size-edges", lambda x: F.max_pool2d(x, 2), grad=True, x=_pool_edges(1, 3, 9, 37))
case("max_pool2d/stride-padding-ceil", lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
     grad=True, x=distinct(2, 2, 8, 7))
case("max_pool2d/rect-dilation", lambda x: F.max_pool2d(x, (2, 3), stride=1, dilation=(2, 1)), grad=True,
     x=distinct(1, 3, 6, 7))
case("avg_pool2d/basic", lambda x: F.avg_pool2d(x, 2), grad=True, x=randn(2, 3, 6, 6))
case("avg_pool2d/padding-count-pad", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1), grad=True, x=randn(2, 2, 7, 6))
case("avg_pool2d/ceil-exclude-pad", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                            count_include_pad=False), grad=True, x=randn(2, 2, 8, 7))
case("adaptive_avg_pool2d/uneven", lambda x: F.adaptive_avg_pool2d(x, (3, 4)), grad=True, x=randn(2, 3, 7, 9))
case("adaptive_avg_pool2d/global", lambda x: F.adaptive_avg_pool2d(x, 1), grad=True, x=randn(2, 3, 5, 5))
case("adaptive_avg_pool2d/upsample", lambda x: F.adaptive_avg_pool2d(x, (4, 5)), grad=True, x=randn(1, 2, 3, 3))

# ---- normalisation ------------------------------------------------------------------------------
def bn_steps(x, w, b, rm, rv):
    # Three training steps on three batches, then the running statistics they left behind.
    ys = [F.batch_norm(x[i], rm, rv, w, b, training=True, momentum=0.1, eps=1e-5) for i in range(3)]
    return (*ys, rm, rv)
case("batch_norm/train-2d-running-stats", bn_steps, grad=True, nograd=("rm", "rv"),
     x=randn(3, 8, 4, 3, 3, scale=2.0, shift=1.0), w=randn(4), b=randn(4), rm=randn(4), rv=positive(4))
case("batch_norm/train-1d", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), grad=True,
     x=randn(16, 5), w=randn(5), b=randn(5))
case("batch_norm/train-1d-3d-input", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), grad=True,
     x=randn(4, 3, 6), w=randn(3), b=randn(3))
case("batch_norm/eval", lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3), grad=True,
     nograd=("rm", "rv"), x=randn(4, 3, 2, 2), w=randn(3), b=randn(3), rm=randn(3), rv=positive(3))
def bn_empty(x, w, b, rm, rv):
    # An empty batch: an empty output, zero gradients for weight and bias, the running statistics as they were.
    return (F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1), rm, rv)
case("batch_norm/train-empty-batch", bn_empty, grad=True, nograd=("rm", "rv"),
     x=randn(0, 4, 3, 3), w=randn(4), b=randn(4), rm=randn(4), rv=positive(4))
case("batch_norm/train-one-value-per-channel", lambda x: F.batch_norm(x, None, None, training=True),
     x=randn(1, 3), expect_error=True)
case("batch_norm/no-affine-float64", lambda x: F.batch_norm(x, None, None, training=True), grad=True,
     x=randn(6, 2, 3, dtype="float64"))
case("layer_norm/last-dim", lambda x, w, b: F.layer_norm(x, (6,), w, b), grad=True, x=randn(4, 6), w=randn(6), b=randn(6))
case("layer_norm/two-dims", lambda x, w, b: F.layer_norm(x, (3, 4), w, b, eps=1e-6), grad=True,
     x=randn(2, 5, 3, 4, shift=3.0), w=randn(3, 4), b=randn(3, 4))
case("layer_norm/no-affine", lambda x: F.layer_norm(x, (8,)), grad=True, x=randn(3, 8))
case("layer_norm/bad-shape", lambda x: F.layer_norm(x, (5,)), x=randn(3, 8), expect_error=True)

# ---- embedding, activations ---------------------------------------------------------------------
case("embedding/basic", lambda i, w: F.embedding(i, w), grad=True, i=randint(0, 10, 4, 5), w=randn(10, 3))
case("embedding/repeated", lambda i, w: F.embedding(i, w), grad=True, i=value([[1, 1, 2], [2, 1, 0]], dtype="int64"),
     w=randn(4, 2))
case("embedding/out-of-range", lambda i, w: F.embedding(i, w), i=value([0, 4], dtype="int64"), w=randn(4, 2),
     expect_error=True)
case("gelu/exact", lambda x: F.gelu(x), grad=True, x=randn(5, 7, scale=2.0))
case("gelu/tanh", lambda x: F.gelu(x, approximate="tanh"), grad=True, x=randn(5, 7, scale=2.0))
case("gelu/float64", lambda x: F.gelu(x), grad=True, x=randn(4, 4, dtype="float64"))
case("dropout/eval-is-identity", lambda x: F.dropout(x, 0.5, training=False), grad=True, x=randn(3, 4))
case("softmax/layer", lambda x: torch.nn.Softmax(dim=1)(x), grad=True, x=randn(4, 5))
case("log_softmax/layer", lambda x: torch.nn.LogSoftmax(dim=-1)(x), grad=True, x=randn(4, 5))
case("flatten/layer", lambda x: torch.nn.Flatten()(x), grad=True, x=randn(2, 3, 4, 5))

# ---- a whole model with the same weights: conv → bn → relu → pool → flatten → linear -----------
def small_cnn(x, cw, cb, bw, bb, lw, lb, rm, rv):
    h = F.conv2d(x, cw, cb, padding=1)
    h = F.batch_norm(h, rm, rv, bw, bb, training=True)
    h = F.max_pool2d(F.relu(h), 2)
    return (F.linear(h.flatten(1), lw, lb), rm, rv)
case("model/small-cnn", small_cnn, grad=True, nograd=("rm", "rv"), atol=1e-4,  # three layers of float32 sums
     x=randn(4, 1, 6, 6), cw=randn(3, 1, 3, 3), cb=randn(3), bw=randn(3), bb=randn(3), lw=randn(2, 27), lb=randn(2),
     rm=randn(3), rv=positive(3))

# ---- activations with a parameter (issue 18): values across 0, views, 0-d and empty inputs ---------
EDGES = [[-3.0, -1.0, -0.0, 0.0, 1e-3, 2.5], [30.0, -30.0, 0.5, -0.5, 7.0, -7.0]]
case("leaky_relu/default", lambda x: F.leaky_relu(x), grad=True, x=randn(4, 6))
case("leaky_relu/slope-edges", lambda x: F.leaky_relu(x, 0.2), grad=True, x=value(EDGES))
case("leaky_relu/module-transposed", lambda x: torch.nn.LeakyReLU(0.3)(x.t()), grad=True, x=randn(5, 3))
case("leaky_relu/0d-float64", lambda x: F.leaky_relu(x, 0.1), grad=True, x=value(-2.0, dtype="float64"))
case("leaky_relu/int-input", lambda x: F.leaky_relu(x), x=randint(-3, 3, 4), expect_error=True)
case("silu/basic", lambda x: F.silu(x), grad=True, x=randn(4, 6, scale=3.0))
case("silu/edges", lambda x: torch.nn.SiLU()(x), grad=True, x=value(EDGES))
case("silu/strided-float64", lambda x: F.silu(x[:, ::2]), grad=True, x=randn(3, 8, dtype="float64"))
case("silu/empty", lambda x: F.silu(x), grad=True, x=randn(0, 3))
# ReLU6 and Hardswish (MobileNets). ReLU6 is hardtanh(x, 0, 6): the gradient is 0 at the bounds
# themselves (clamp's passes it), a NaN passes it, and an integer input keeps its dtype.
case("relu6/basic", lambda x: torch.nn.ReLU6(inplace=True)(x.clone()), grad=True, x=randn(4, 6, scale=4.0))
case("relu6/float64", lambda x: torch.nn.ReLU6()(x), grad=True, x=randn(3, 5, dtype="float64", scale=4.0))
case("hardswish/basic", lambda x: torch.nn.Hardswish()(x), grad=True, x=randn(4, 6, scale=3.0))
case("hardswish/float64", lambda x: torch.nn.Hardswish()(x), grad=True, x=randn(3, 5, dtype="float64", scale=3.0))
case("relu6/kinks", lambda x: torch.nn.ReLU6()(x), grad=True, x=value([-1.0, -0.0, 0.0, 3.0, 6.0, 7.0, float("nan")]))
case("relu6/kinks-float64", lambda x: F.relu6(x), grad=True, x=value([-1.0, 0.0, 3.0, 6.0, 7.0], dtype="float64"))
case("relu6/double-backward", lambda x: torch.autograd.grad(F.relu6(x).sum(), x, create_graph=True)[0], grad=True,
     x=value([-1.0, 0.0, 3.0, 6.0, 7.0]))
case("relu6/int64-keeps-dtype", lambda x: torch.nn.ReLU6()(x), x=randint(-9, 9, 6))
case("relu6/bool-refused", lambda x: torch.nn.ReLU6()(x > 0), x=randn(4), expect_error=True)
case("hardtanh/bounds", lambda x: F.hardtanh(x, -2.0, 3.0), grad=True,
     x=value([[-3.0, -2.0, 0.0, 3.0, 4.0], [float("inf"), float("-inf"), float("nan"), 2.9, -1.9]]))
case("hardtanh/int-truncated-bounds", lambda x: F.hardtanh(x, -1.5, 2.5), x=randint(-9, 9, 6))
case("hardtanh/int-bound-overflow", lambda x: F.hardtanh(x, -1e30, 1e30), x=randint(-9, 9, 6), expect_error=True)
case("hardswish/int-refused", lambda x: torch.nn.Hardswish()(x), x=randint(-3, 3, 4), expect_error=True)
case("elu/default", lambda x: F.elu(x), grad=True, x=randn(4, 6, scale=2.0))
case("elu/alpha-edges", lambda x: torch.nn.ELU(alpha=0.5)(x), grad=True, x=value(EDGES))
case("elu/0d", lambda x: F.elu(x, 2.0), grad=True, x=value(-0.7))
case("elu/expanded-float64", lambda x: F.elu(x.expand(4, 3), 1.5), grad=True, x=randn(1, 3, dtype="float64"))
# PyTorch tests x <= 0: a NaN takes the identity branch (gradient 1, not NaN)
case("elu/nan-and-zeros", lambda x: F.elu(x, 0.5), grad=True, x=value([float("nan"), -0.0, 0.0, -1, 1]))
case("elu/nan-double-backward", lambda x: torch.autograd.grad(F.elu(x, 0.5).sum(), x, create_graph=True)[0], grad=True,
     x=value([float("nan"), -0.5, 0.5, 0.0, -0.0]))
case("softplus/default", lambda x: F.softplus(x), grad=True, x=randn(4, 6, scale=3.0))
case("softplus/beta-threshold", lambda x: F.softplus(x, beta=2.0, threshold=5.0), grad=True, x=value(EDGES))
case("softplus/module-large", lambda x: torch.nn.Softplus(beta=0.5, threshold=10)(x), grad=True,
     x=randn(3, 5, scale=30.0))
case("softplus/float64-empty", lambda x: F.softplus(x, beta=3.0), grad=True, x=randn(2, 0, dtype="float64"))
case("softplus/int-input", lambda x: F.softplus(x), x=randint(-3, 3, 4), expect_error=True)

# ---- issue 18's layers: conv1d, padding="same", conv_transpose2d, interpolate --------------------------
case("conv1d/basic", lambda x, w, b: F.conv1d(x, w, b), grad=True, x=randn(2, 3, 9), w=randn(4, 3, 3), b=randn(4))
case("conv1d/stride-padding-dilation", lambda x, w: F.conv1d(x, w, None, stride=2, padding=2, dilation=2), grad=True,
     x=randn(2, 2, 11), w=randn(3, 2, 3))
case("conv1d/groups-unbatched", lambda x, w, b: F.conv1d(x, w, b, groups=2, padding=1), grad=True, x=randn(4, 7),
     w=randn(6, 2, 3), b=randn(6))
case("conv1d/transposed-float64", lambda x, w: F.conv1d(x.transpose(1, 2), w), grad=True,
     x=randn(2, 8, 3, dtype="float64"), w=randn(2, 3, 4, dtype="float64"))
def with_weights(module, w, b):
    """The module with w and b copied in (its forward is compared; the functional cases check backward)."""
    with torch.no_grad():
        module.weight.copy_(w)
        module.bias.copy_(b)
    return module


case("conv1d/same", lambda x, w, b: F.conv1d(x, w, b, padding="same"), grad=True, x=randn(2, 3, 10),
     w=randn(5, 3, 4), b=randn(5))
case("conv1d/module-same", lambda x, w, b: with_weights(torch.nn.Conv1d(3, 5, 4, padding="same"), w, b)(x),
     x=randn(2, 3, 10), w=randn(5, 3, 4), b=randn(5))
case("conv1d/same-dilation", lambda x, w: F.conv1d(x, w, padding="same", dilation=3), grad=True, x=randn(1, 2, 12),
     w=randn(2, 2, 3))
case("conv1d/valid", lambda x, w: F.conv1d(x, w, padding="valid"), grad=True, x=randn(1, 2, 6), w=randn(3, 2, 3))
case("conv1d/channel-mismatch", lambda x, w: F.conv1d(x, w), x=randn(1, 2, 8), w=randn(4, 3, 3), expect_error=True)
case("conv1d/same-strided", lambda x, w: F.conv1d(x, w, stride=2, padding="same"), x=randn(1, 2, 8), w=randn(4, 2, 3),
     expect_error=True)
case("conv1d/bad-padding-string", lambda x, w: F.conv1d(x, w, padding="full"), x=randn(1, 2, 8), w=randn(4, 2, 3),
     expect_error=True)
case("conv2d/same-odd-kernel", lambda x, w, b: F.conv2d(x, w, b, padding="same"), grad=True, x=randn(2, 3, 6, 7),
     w=randn(4, 3, 3, 5), b=randn(4))
case("conv2d/same-even-kernel", lambda x, w: F.conv2d(x, w, padding="same"), grad=True, x=randn(2, 2, 5, 6),
     w=randn(3, 2, 2, 4))
case("conv2d/same-dilation-groups", lambda x, w: F.conv2d(x, w, padding="same", dilation=(2, 1), groups=2), grad=True,
     x=randn(1, 4, 7, 6), w=randn(4, 2, 2, 3))
case("conv2d/same-unbatched", lambda x, w: F.conv2d(x, w, padding="same"), grad=True, x=randn(2, 5, 5),
     w=randn(3, 2, 4, 4))
case("conv2d/same-strided", lambda x, w: F.conv2d(x, w, stride=2, padding="same"), x=randn(1, 2, 8, 8),
     w=randn(4, 2, 3, 3), expect_error=True)
case("conv_transpose2d/basic", lambda x, w, b: F.conv_transpose2d(x, w, b), grad=True, x=randn(2, 3, 4, 5),
     w=randn(3, 2, 3, 3), b=randn(2))
case("conv_transpose2d/stride-padding-output-padding",
     lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1), grad=True,
     x=randn(2, 2, 4, 4), w=randn(2, 3, 3, 3), b=randn(3))
case("conv_transpose2d/rect-dilation-groups",
     lambda x, w: F.conv_transpose2d(x, w, None, stride=(2, 1), padding=(0, 1), groups=2, dilation=(1, 2)), grad=True,
     x=randn(1, 4, 3, 5), w=randn(4, 3, 2, 3))
case("conv_transpose2d/unbatched-transposed-float64", lambda x, w: F.conv_transpose2d(x.transpose(1, 2), w, stride=3),
     grad=True, x=randn(2, 4, 3, dtype="float64"), w=randn(2, 1, 2, 2, dtype="float64"))
case("conv_transpose2d/batched-gemm-last-group-short", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1),
     grad=True, x=randn(35, 3, 8, 8), w=randn(3, 2, 3, 3), b=randn(2))
case("conv_transpose2d/module", lambda x, w, b: with_weights(torch.nn.ConvTranspose2d(4, 2, 2, stride=2), w, b)(x),
     x=randn(1, 4, 3, 3), w=randn(4, 2, 2, 2), b=randn(2))
case("conv_transpose2d/channel-mismatch", lambda x, w: F.conv_transpose2d(x, w), x=randn(1, 3, 4, 4),
     w=randn(2, 3, 3, 3), expect_error=True)
case("conv_transpose2d/output-padding-too-large", lambda x, w: F.conv_transpose2d(x, w, stride=2, output_padding=2),
     x=randn(1, 2, 4, 4), w=randn(2, 3, 3, 3), expect_error=True)
case("interpolate/nearest-scale2", lambda x: F.interpolate(x, scale_factor=2), grad=True, x=randn(2, 3, 4, 5))
case("interpolate/nearest-size", lambda x: F.interpolate(x, size=(7, 3)), grad=True, x=randn(1, 2, 5, 6))
case("interpolate/nearest-fractional-scale", lambda x: F.interpolate(x, scale_factor=(1.5, 0.7)), grad=True,
     x=randn(1, 2, 5, 7))
# nearest copies pixels: infinities stay infinities (a weighted sum would make 0 * inf = NaN)
INF = float("inf")
case("interpolate/nearest-infinities", lambda x: F.interpolate(x, scale_factor=2), grad=True,
     x=value([[[[1, 2, INF], [-INF, 3, 4]]]]))
case("interpolate/nearest-same-size-infinities", lambda x: F.interpolate(x, size=(2, 3)), x=value([[[[1, 2, INF], [-INF, 3, 4]]]]))
case("interpolate/bilinear-scale2", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), grad=True,
     x=randn(2, 2, 4, 3))
case("interpolate/bilinear-size-align", lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True),
     grad=True, x=randn(1, 3, 4, 5))
# An infinite pixel: PyTorch multiplies every tap by its weight, so a neighbour at weight 0 still makes
# 0 * inf = NaN next to it, and the weighted sums with the infinity give +-inf or NaN.
case("interpolate/bilinear-infinity", lambda x: F.interpolate(x, size=(5, 5), mode="bilinear", align_corners=True),
     x=value([[[[1, 2, 3], [4, INF, 6], [-INF, 8, 9]]]]))
case("interpolate/bilinear-same-size-infinity", lambda x: F.interpolate(x, size=(3, 3), mode="bilinear"),
     x=value([[[[1, 2, 3], [4, INF, 6], [-INF, 8, 9]]]]))
case("interpolate/bilinear-one-dim-same-size", lambda x: F.interpolate(x, size=(3, 7), mode="bilinear"), grad=True,
     x=randn(2, 2, 3, 4))
case("interpolate/bilinear-one-dim-same-size-infinity",
     lambda x: F.interpolate(x, scale_factor=(1.0, 1.5), mode="bilinear", align_corners=True),
     x=value([[[[1, 2, 3], [4, INF, 6], [-INF, 8, 9]]]]))
case("interpolate/bilinear-downsample", lambda x: F.interpolate(x, size=(3, 2), mode="bilinear"), grad=True,
     x=randn(1, 2, 8, 7))
case("interpolate/bilinear-align-one-pixel", lambda x: F.interpolate(x, size=(1, 4), mode="bilinear",
                                                                      align_corners=True), grad=True, x=randn(1, 1, 3, 3))
case("interpolate/bilinear-transposed-float64", lambda x: F.interpolate(x.transpose(2, 3), scale_factor=1.7,
                                                                         mode="bilinear"), grad=True,
     x=randn(1, 2, 4, 6, dtype="float64"))
case("interpolate/upsample-module", lambda x: torch.nn.Upsample(scale_factor=3, mode="nearest")(x), grad=True,
     x=randn(1, 1, 2, 2))
case("interpolate/upsample-module-bilinear", lambda x: torch.nn.Upsample(size=(5, 5), mode="bilinear",
                                                                          align_corners=False)(x), grad=True,
     x=randn(2, 1, 3, 4))
case("interpolate/nearest-align-corners", lambda x: F.interpolate(x, scale_factor=2, align_corners=True),
     x=randn(1, 1, 2, 2), expect_error=True)
case("interpolate/size-and-scale", lambda x: F.interpolate(x, size=4, scale_factor=2), x=randn(1, 1, 2, 2),
     expect_error=True)
case("interpolate/bilinear-3d", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), x=randn(1, 2, 4),
     expect_error=True)
