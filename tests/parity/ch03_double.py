# Double backward of the activations used in gradient penalties (issue 28): each case returns
# dL/dx computed with create_graph=True; the harness backpropagates a seeded gradient through it,
# so the second derivatives are compared with PyTorch 1.13's. float64, so the comparison is tight.
# The C++ twin of each case is in ch03_double.cpp, same name.
import torch.nn.functional as F

D = dict(dtype="float64")


def _grad(y, x):
    return torch.autograd.grad(y, x, create_graph=True)[0]


ACTS = {
    "gelu": F.gelu,
    "gelu-tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "elu": lambda x: F.elu(x, 0.7),
    "softplus": lambda x: F.softplus(x, 2.0, 1.5),
    "leaky-relu": lambda x: F.leaky_relu(x, 0.2),
}
for name, f in ACTS.items():
    case(f"double/{name}", lambda x, w, f=f: _grad((f(x) * w).sum(), x), grad=True, nograd=("w",),
         x=randn(4, 5, scale=2, **D), w=randn(4, 5, **D))
# A gradient penalty on a small MLP: || d out / d x ||^2, differentiated w.r.t. the weights.
case("penalty/mlp-gelu-silu", lambda x, w1, w2: (_grad((F.silu(F.gelu(x @ w1) @ w2)).sum(), x) ** 2).sum(),
     grad=True, x=randn(3, 4, **D), w1=randn(4, 6, **D), w2=randn(6, 2, **D))
# layer_norm's gradients, differentiated again w.r.t. the input, the weight and the bias.
case("double/layer-norm", lambda x, w, b, v: _grad((F.layer_norm(x, (3, 4), w, b) * v).sum(), x), grad=True,
     nograd=("v",), x=randn(2, 3, 4, **D), w=randn(3, 4, **D), b=randn(3, 4, **D), v=randn(2, 3, 4, **D))
case("double/layer-norm-weight-grad", lambda x, w, v: _grad((F.layer_norm(x, (4,), w) * v).sum(), w) ** 2,
     grad=True, nograd=("v",), x=randn(3, 4, **D), w=randn(4, **D), v=randn(3, 4, **D))
case("penalty/layer-norm-no-affine", lambda x, w: (_grad((F.layer_norm(x @ w, (5,)) ** 3).sum(), x) ** 2).sum(),
     grad=True, x=randn(3, 4, **D), w=randn(4, 5, **D))
# batch_norm: in training the batch statistics depend on the input (differentiated again too); in
# evaluation the running statistics are constants.
case("double/batch-norm-train", lambda x, w, b, v: _grad((F.batch_norm(x, None, None, w, b, training=True) * v)
     .pow(2).sum(), x), grad=True, nograd=("v",), x=randn(4, 3, 2, 2, **D), w=randn(3, **D), b=randn(3, **D),
     v=randn(4, 3, 2, 2, **D))
case("double/batch-norm-eval", lambda x, w, b, rm, rv: _grad(F.batch_norm(x, rm, rv, w, b).pow(3).sum(), x),
     grad=True, nograd=("rm", "rv"), x=randn(4, 3, 5, **D), w=randn(3, **D), b=randn(3, **D), rm=randn(3, **D),
     rv=positive(3, **D))
# Pooling: the backward is linear in the gradient (max pooling's winners are constants), so the
# second derivative w.r.t. the input is 0 and the one w.r.t. the incoming gradient is the pooling.
for name, pool in [("max-pool-2x2", lambda x: F.max_pool2d(x, 2)),
                   ("max-pool-3x3-stride-2-pad-1", lambda x: F.max_pool2d(x, 3, 2, 1)),
                   ("avg-pool-3x3-stride-2-pad-1", lambda x: F.avg_pool2d(x, 3, 2, 1)),
                   ("adaptive-avg-pool", lambda x: F.adaptive_avg_pool2d(x, (2, 3)))]:
    case(f"double/{name}", lambda x, w, pool=pool: _grad((pool(x * w) ** 2).sum(), w), grad=True,
         x=randn(2, 3, 5, 6, **D), w=randn(2, 3, 5, 6, **D))
# conv2d: the gradient w.r.t. the input, differentiated w.r.t. the weight, the input and the bias
# (a WGAN-GP style penalty), over strides, padding, dilation and groups.
for name, kw in [("plain", dict()), ("stride-2-pad-1", dict(stride=2, padding=1)),
                 ("dilation-2-stride-3x2", dict(stride=(3, 2), padding=(2, 1), dilation=2)),
                 ("groups-2", dict(padding=1, groups=2))]:
    case(f"penalty/conv2d-{name}", lambda x, w, b, kw=kw: (_grad(F.leaky_relu(F.conv2d(x, w, b, **kw), 0.2).pow(2)
         .sum(), x) ** 2).sum(), grad=True, x=randn(2, 4, 7, 6, **D), w=randn(6, 4 // kw.get("groups", 1), 3, 3, **D),
         b=randn(6, **D))
case("double/conv2d-weight-grad", lambda x, w: _grad(F.conv2d(x, w, stride=2, padding=1).pow(2).sum(), w), grad=True,
     x=randn(2, 3, 6, 5, **D), w=randn(4, 3, 3, 2, **D))
# Upsampling and embedding: their backwards are linear in the gradient (the resampling's adjoint, a
# scatter-add of rows), so the second derivatives come through the incoming gradient.
for name, kw in [("nearest", dict(scale_factor=2, mode="nearest")),
                 ("bilinear", dict(size=(5, 7), mode="bilinear")),
                 ("bilinear-align-corners", dict(scale_factor=1.5, mode="bilinear", align_corners=True))]:
    case(f"double/upsample-{name}", lambda x, w, kw=kw: _grad((F.interpolate(x * w, **kw) ** 2).sum(), w), grad=True,
         x=randn(2, 3, 3, 4, **D), w=randn(2, 3, 3, 4, **D))
case("double/embedding", lambda w, i, v: _grad(((F.embedding(i, w) * v) ** 2).sum(), w) ** 2, grad=True,
     nograd=("v",), w=randn(5, 3, **D), i=randint(0, 5, 4, 2), v=randn(4, 2, 3, **D))
# conv_transpose2d: the gradient w.r.t. the input, differentiated w.r.t. the weight, the input and
# the bias; and its weight gradient differentiated again (stride, padding, output_padding, groups).
case("penalty/conv-transpose2d", lambda x, w, b: (_grad(F.leaky_relu(F.conv_transpose2d(
     x, w, b, stride=2, padding=1, output_padding=1, groups=2), 0.2).pow(2).sum(), x) ** 2).sum(), grad=True,
     x=randn(2, 4, 4, 3, **D), w=randn(4, 3, 3, 2, **D), b=randn(6, **D))
case("double/conv-transpose2d-weight-grad", lambda x, w: _grad(F.conv_transpose2d(x, w, stride=(1, 2),
     dilation=(2, 1)).pow(2).sum(), w), grad=True, x=randn(2, 3, 4, 5, **D), w=randn(3, 2, 2, 3, **D))
