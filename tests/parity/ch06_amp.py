# Chapter 6 parity: GradScaler against PyTorch 1.13's own torch.cuda.amp.GradScaler.
#
# PyTorch 1.13 runs GradScaler only on CUDA; the oracle runs PyTorch's GradScaler class -- its stages,
# step skipping, update and state_dict, all its Python -- with its two kernels written for the CPU
# exactly as PyTorch's CUDA kernels compute them (tests/parity/cpu_grad_scaler.py).
from cpu_grad_scaler import CPUGradScaler  # noqa: E402  (PyTorch's GradScaler, its kernels on the CPU)


STEPS = 16


def scaled_run(growth_interval, lr=0.1, **scaler_kw):
    """SGD on ((x @ w - y)^2).mean() * f[k]: f[k] of 1e33 and more make scaled gradients overflow
    (and a NaN makes them NaN). Returns, after every step, the scale, the growth tracker, whether
    the optimizer stepped, and w; then the final state_dict as numbers."""
    def run(w, x, y, f):
        w = w.clone().requires_grad_(True)
        opt = torch.optim.SGD([w], lr=lr)
        scaler = CPUGradScaler(growth_interval=growth_interval, **scaler_kw)
        scales, trackers, stepped, ws = [], [], [], []
        for k in range(STEPS):
            opt.zero_grad()
            loss = ((x @ w - y) ** 2).mean() * f[k]
            scaler.scale(loss).backward()
            scaler.step(opt)
            found = scaler._per_optimizer_states[id(opt)]["found_inf_per_device"]
            stepped.append(sum(float(v) for v in found.values()) == 0)
            scaler.update()
            scales.append(scaler.get_scale())
            trackers.append(scaler._get_growth_tracker())
            ws.append(w.detach().clone())
        sd = scaler.state_dict()
        state = [sd["scale"], sd["growth_factor"], sd["backoff_factor"], sd["growth_interval"],
                 sd["_growth_tracker"]]
        return (torch.tensor(scales, dtype=torch.float64), torch.tensor(trackers),
                torch.tensor(stepped), torch.stack(ws), torch.tensor(state, dtype=torch.float64))
    return run


NAN = float("nan")
factors = [1, 1, 1, 1, 2e33, 2e33, 1, NAN, 1, 1, 1, 1, 1e34, 1, 1, 1]
inputs = dict(w=randn(4, 3), x=randn(8, 4), y=randn(8, 3), f=value(factors))
case("grad-scaler/overflow-backoff-growth", scaled_run(3), **inputs)
case("grad-scaler/default-interval", scaled_run(2000), **inputs)
case("grad-scaler/custom-factors", scaled_run(2, init_scale=2.0 ** 120, growth_factor=4.0,
                                              backoff_factor=0.25), **inputs)
# 2^127 * 2 is inf in float32: the scale must stay at 2^127, never grow to inf.
case("grad-scaler/no-growth-to-inf", scaled_run(1, init_scale=2.0 ** 127),
     w=randn(4, 3), x=randn(8, 4), y=randn(8, 3), f=value([1e-30] * STEPS))


def unscale_then_step(w, x, y):
    """unscale_ by hand (to look at or clip the true gradients), then step: step must not unscale
    again. Returns the scaled and unscaled gradients and w after the step."""
    w = w.clone().requires_grad_(True)
    opt = torch.optim.SGD([w], lr=0.5)
    scaler = CPUGradScaler(init_scale=1024.0)
    scaler.scale(((x @ w - y) ** 2).mean()).backward()
    scaled = w.grad.clone()
    scaler.unscale_(opt)
    unscaled = w.grad.clone()
    scaler.step(opt)
    scaler.update()
    return scaled, unscaled, w.detach()


case("grad-scaler/unscale-then-step", unscale_then_step, w=randn(4, 3), x=randn(8, 4), y=randn(8, 3))
case("grad-scaler/scale-dtype-shape", lambda a, b: (CPUGradScaler().scale(a), CPUGradScaler().scale(b)),
     a=randn(dtype="bfloat16"), b=randn(3, dtype="float16"))


# ---- autocast: which dtype each op runs in (PyTorch 1.13's CPU lists, bfloat16) ---------------------
import torch.nn.functional as F


def autocast(f, enabled=True):
    def g(*args):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=enabled):
            return f(*args)
    return g


# This PyTorch build (generic BLAS) multiplies bfloat16 matrices with a loop that rounds partial
# sums to bfloat16, Kindling in float32 with one rounding: with K <= 8 they stay a few bfloat16
# ulps apart. The dtypes -- what autocast decides -- must match exactly.
LOOSE = dict(rtol=3e-2, atol=3e-2)
X, W, Bv = randn(6, 8), randn(5, 8), randn(5)
case("autocast/matmul", autocast(lambda a, b: a @ b), a=randn(6, 8), b=randn(8, 4), **LOOSE)
case("autocast/matmul-batched", autocast(lambda a, b: a @ b), a=randn(2, 3, 8), b=randn(8, 4), **LOOSE)
case("autocast/mm", autocast(torch.mm), a=randn(6, 8), b=randn(8, 4), **LOOSE)
case("autocast/mv-dot-stay-float32", autocast(lambda a, v: (torch.mv(a, v), torch.dot(v, v))),
     a=randn(6, 8), v=randn(8))
case("autocast/linear", autocast(F.linear), x=X, w=W, b=Bv, **LOOSE)
case("autocast/linear-grad", autocast(F.linear), x=X, w=W, b=Bv, grad=True, **LOOSE)
def conv2d_autocast(x, w, b):
    """The dtype autocast picks for conv2d, with the values of the float32 convolution of the
    bfloat16-rounded inputs rounded once (K = 27 here: the bfloat16 partial sums of this build's
    fallback convolution drift by 0.05)."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        dtype = F.conv2d(x, w, b).dtype
    r = lambda t: t.to(dtype).float()  # noqa: E731
    return F.conv2d(r(x), r(w), r(b)).to(dtype)


case("autocast/conv2d", conv2d_autocast, x=randn(2, 3, 6, 6), w=randn(4, 3, 3, 3), b=randn(4))
case("autocast/conv2d-grad", autocast(F.conv2d), x=randn(1, 2, 5, 5), w=randn(3, 2, 2, 2), b=randn(3),
     grad=True, **LOOSE)
case("autocast/other-ops-keep-bfloat16",
     autocast(lambda x, w: (lambda h: (h.relu(), h.sum(), h.mean(1), h.softmax(-1), h.log_softmax(-1),
                                       h.exp(), h.tanh()))(x @ w)), x=randn(4, 3), w=randn(3, 5), **LOOSE)
case("autocast/float32-operand-promotes", autocast(lambda x, w, b: x @ w + b), x=randn(4, 3), w=randn(3, 5),
     b=randn(5), **LOOSE)
case("autocast/losses-run-in-float32",
     autocast(lambda x, w, y, t: (lambda h: (F.cross_entropy(h, y), F.mse_loss(h, t), F.l1_loss(h, t),
                                             F.nll_loss(h.log_softmax(1), y)))(x @ w)),
     x=randn(4, 3), w=randn(3, 5), y=randint(0, 5, 4), t=randn(4, 5, dtype="bfloat16"), **LOOSE)
# On PyTorch 1.13's CPU float32 list: conv_transpose2d (unlike conv2d) and prod, whatever dtype their
# inputs have (float32 inputs stay float32, bfloat16 ones are widened; the gradients go back in each
# input's own dtype).
case("autocast/conv-transpose2d-runs-in-float32", autocast(F.conv_transpose2d), x=randn(1, 2, 4, 4),
     w=randn(2, 3, 3, 3), b=randn(3), grad=True)
case("autocast/conv-transpose2d-bfloat16-inputs-widened", autocast(F.conv_transpose2d),
     x=randn(1, 2, 4, 4, dtype="bfloat16"), w=randn(2, 3, 3, 3, dtype="bfloat16"), b=randn(3, dtype="bfloat16"),
     grad=True, **LOOSE)
case("autocast/prod-runs-in-float32",
     autocast(lambda h: (torch.prod(h), torch.prod(h, 1), torch.prod(h, 0, keepdim=True))),
     h=rand(3, 4, low=0.5, high=1.5, dtype="bfloat16"), grad=True, **LOOSE)
case("autocast/float64-untouched", autocast(lambda a, b: a @ b), a=randn(3, 4, dtype="float64"),
     b=randn(4, 2, dtype="float64"))
case("autocast/float16-input-cast-to-bfloat16", autocast(lambda a, b: a @ b), a=randn(3, 4, dtype="float16"),
     b=randn(4, 2, dtype="float16"), **LOOSE)


def norm_and_pool(h, rm, rv, w, b):
    """What a CNN runs after a bfloat16 convolution: PyTorch 1.13's CPU autocast lists none of these
    ops, so each runs in its input's dtype (bfloat16), with float32 running statistics and affine
    parameters for batch_norm, as a BatchNorm2d module under autocast has."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        rm, rv = rm.clone(), rv.clone()
        train = F.batch_norm(h, rm, rv, w, b, training=True)
        return (train, rm, rv, F.batch_norm(h, rm, rv, w, b, training=False), F.layer_norm(h, [4, 4]),
                F.max_pool2d(h, 2), F.max_pool2d(h, 3, 1, 1), F.avg_pool2d(h, 2), F.adaptive_avg_pool2d(h, 1))


# Kindling computes these in float32 and rounds once; this PyTorch build's bfloat16 layer_norm is
# 0.003 away from that near zero (a tolerance of one bfloat16 ulp fails there), hence LOOSE.
case("autocast/norm-and-pool-follow-bfloat16", norm_and_pool, h=randn(2, 4, 4, 4, dtype="bfloat16"),
     rm=randn(4), rv=rand(4), w=randn(4), b=randn(4), **LOOSE)



def norm_and_pool_grad(h, w, b):
    """The same ops' backward: gradients in bfloat16 for the activations, float32 for the
    parameters."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return (F.batch_norm(h, None, None, w, b, training=True), F.layer_norm(h, [4, 4]),
                F.max_pool2d(h, 2), F.avg_pool2d(h, 3, 1, 1), F.adaptive_avg_pool2d(h, 1))


case("autocast/norm-and-pool-grad", norm_and_pool_grad, h=randn(2, 4, 4, 4, dtype="bfloat16"), w=randn(4),
     b=randn(4), grad=True, **LOOSE)
case("autocast/half-pooling-refused", lambda h: F.max_pool2d(h, 2), h=randn(1, 1, 4, 4, dtype="float16"),
     expect_error=True)
case("autocast/layer-norm-float32-weight-refused", lambda h, w: F.layer_norm(h, [4], w),
     h=randn(2, 4, dtype="bfloat16"), w=randn(4), expect_error=True)

def nested(a, b):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        inner_on = a @ b
        with torch.autocast("cpu", enabled=False):
            off = a @ b
        after = a @ b
    outside = a @ b
    return inner_on, off, after, outside


case("autocast/nested-disable", nested, a=randn(3, 4), b=randn(4, 2), **LOOSE)


def mlp_step(x, w1, b1, w2, b2, y):
    """The training step under autocast: forward in the region, backward outside; the weights'
    gradients are float32."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = F.linear(x, w1, b1).relu()
        logits = F.linear(h, w2, b2)
        loss = F.cross_entropy(logits, y)
    return loss, logits


case("autocast/mlp-step-grad", mlp_step, x=randn(8, 6), w1=randn(7, 6), b1=randn(7), w2=randn(3, 7),
     b2=randn(3), y=randint(0, 3, 8), grad=True, nograd=["x"], **LOOSE)


# ---- the 16-bit GEMM: float32 accumulation, one rounding (lib/src/tensor/bf16_gemm.cpp) ------------
# What torch's bfloat16 matmul computes where PyTorch 1.13 runs it on oneDNN (a CPU with AVX-512):
# every product of two bfloat16 numbers is exact in float32, the sum runs in float32 and the result
# is rounded to bfloat16 once. This build (BLAS_INFO=generic, no AVX-512 here) has a loop that rounds
# each partial sum to bfloat16 instead -- at K = 784 it is off by up to 5.8 -- so the expected
# values are torch's float32 product of the same bfloat16 inputs, rounded once by torch. Tolerance:
# the two float32 sums add in different orders, which can move a result across a rounding boundary:
# one bfloat16 ulp (at most 2^-7 of the value), plus an absolute 1e-4 for results that cancel to
# near zero (the float32 sums differ by ~sqrt(K) * 2^-24 * sum |a b| there).
BF16_ULP = dict(rtol=2.0 ** -7, atol=1e-4)


def rounded_once(f, dtype=torch.bfloat16):
    """f on float32 copies of the 16-bit inputs, rounded once to `dtype`."""
    def g(*args):
        out = f(*[a.float() for a in args])
        return tuple(o.to(dtype) for o in out) if isinstance(out, tuple) else out.to(dtype)
    return g


case("bf16-gemm/x-wt-simplenet-fc1", rounded_once(lambda x, w: x @ w.t()),
     x=randn(32, 784, dtype="bfloat16"), w=randn(128, 784, dtype="bfloat16"), **BF16_ULP)
case("bf16-gemm/gt-x-weight-grad", rounded_once(lambda g, x: g.t() @ x),
     g=randn(32, 128, dtype="bfloat16"), x=randn(32, 784, dtype="bfloat16"), **BF16_ULP)
case("bf16-gemm/g-w-input-grad", rounded_once(lambda g, w: g @ w),
     g=randn(32, 128, dtype="bfloat16"), w=randn(128, 784, dtype="bfloat16"), **BF16_ULP)
case("bf16-gemm/bmm-broadcast", rounded_once(lambda a, b: a @ b),
     a=randn(2, 3, 5, 40, dtype="bfloat16"), b=randn(3, 40, 7, dtype="bfloat16"), **BF16_ULP)
case("bf16-gemm/strided-views", rounded_once(lambda a, b: a[:, ::2] @ b[::3].t()),
     a=randn(9, 20, dtype="bfloat16"), b=randn(18, 10, dtype="bfloat16"), **BF16_ULP)
case("bf16-gemm/vector-and-0d-sizes", rounded_once(lambda v, a, e, z: (v @ a, a.t() @ v[:6], e @ a, z @ z.t())),
     v=randn(6, dtype="bfloat16"), a=randn(6, 4, dtype="bfloat16"), e=randn(0, 6, dtype="bfloat16"),
     z=randn(3, 0, dtype="bfloat16"), **BF16_ULP)
case("bf16-gemm/large-values", lambda a, b: ((a * 1e18).float() @ (b * 1e18).float()).bfloat16(),
     a=randn(4, 64, dtype="bfloat16"), b=randn(64, 4, dtype="bfloat16"), rtol=2.0 ** -7, atol=0)
# float16: PyTorch 1.13 has no CPU float16 matmul ("addmm_impl_cpu_" not implemented for 'Half');
# Kindling's (chapter 8 runs the same programs on CUDA, where PyTorch has one) is checked against
# the float32 product of the float16 inputs rounded once: one float16 ulp is at most 2^-10.
case("bf16-gemm/float16-rounded-once", rounded_once(lambda a, b: a @ b.t(), torch.float16),
     a=randn(16, 300, dtype="float16"), b=randn(8, 300, dtype="float16"), rtol=2.0 ** -10, atol=1e-3)


def autocast_linear_k784(x, w):
    """Under autocast, SimpleNet's first layer (float32 x and w, K = 784): the dtype autocast
    picks, with the values of the float32 product of the bfloat16-rounded inputs rounded once."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        dtype = F.linear(x, w).dtype
    return (x.to(dtype).float() @ w.to(dtype).float().t()).to(dtype)


case("bf16-gemm/autocast-linear-k784", autocast_linear_k784, x=randn(32, 784), w=randn(128, 784), **BF16_ULP)

# addmm's bias is added to the float32 sums and rounded with them, once (as PyTorch's CPU bfloat16
# addmm does where it runs on oneDNN, on AVX-512 CPUs; adding the rounded product to the bias would
# round twice and miss in about a quarter of the elements). Small integers, and eighths for the
# bias, make every sum exact in float32 whatever its order (float16 takes larger integers, so that
# its products must round too), so the expected values are exact and so is the comparison:
# rtol = atol = 0. Covered: a [N] and a [1, N] bias, K = 0 (the bias alone), float16 (the widened
# path), and Linear under autocast with float32 inputs.
EXACT = dict(rtol=0, atol=0)
case("bf16-gemm/addmm-bias-rounded-once",
     rounded_once(lambda b, x, w, e, f: (b / 8 + x @ w.t(), (b / 8).reshape(1, -1) + x @ w.t(), b / 8 + e @ f.t())),
     b=randint(-64, 64, 24, dtype="bfloat16"), x=randint(-8, 8, 40, 16, dtype="bfloat16"),
     w=randint(-8, 8, 24, 16, dtype="bfloat16"), e=randn(5, 0, dtype="bfloat16"), f=randn(24, 0, dtype="bfloat16"),
     **EXACT)
case("bf16-gemm/float16-addmm-bias-rounded-once",
     rounded_once(lambda b, x, w: b / 8 + x @ w.t(), torch.float16),
     b=randint(-2048, 2048, 24, dtype="float16"), x=randint(-64, 64, 40, 8, dtype="float16"),
     w=randint(-64, 64, 24, 8, dtype="float16"), **EXACT)


def autocast_linear_bias(x, w, b):
    """Linear with a bias under autocast: bfloat16 out, bias + x @ w.t() rounded once."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        dtype = F.linear(x, w, b / 8).dtype
    return (b / 8 + x @ w.t()).to(dtype)


case("bf16-gemm/autocast-linear-bias", autocast_linear_bias, x=randint(-8, 8, 64, 32, dtype="float32"),
     w=randint(-8, 8, 48, 32, dtype="float32"), b=randint(-64, 64, 48, dtype="float32"), **EXACT)


# ---- gradient accumulation: the loop with and without "/ accumulation_steps" ---------------------
ACCUMULATION_STEPS, MICRO_BATCHES = 4, 8


def accumulation(divide, optimizer):
    """The accumulation loop: backward every micro-batch, step and zero_grad every
    ACCUMULATION_STEPS. Returns the parameters after each optimizer step (the trajectory)."""
    def run(w1, b1, w2, b2, x, y):
        params = [p.clone().requires_grad_(True) for p in (w1, b1, w2, b2)]
        if optimizer == "sgd":
            opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
        else:
            opt = torch.optim.Adam(params, lr=0.01)
        trajectory = []
        opt.zero_grad()
        for i in range(MICRO_BATCHES):
            h = F.linear(x[i], params[0], params[1]).relu()
            loss = F.cross_entropy(F.linear(h, params[2], params[3]), y[i])
            if divide:
                loss = loss / ACCUMULATION_STEPS
            loss.backward()
            if (i + 1) % ACCUMULATION_STEPS == 0:
                opt.step()
                opt.zero_grad()
                trajectory.append(torch.cat([p.detach().flatten() for p in params]))
        return torch.stack(trajectory)
    return run


acc_inputs = lambda: dict(w1=randn(5, 6), b1=randn(5), w2=randn(3, 5), b2=randn(3),  # noqa: E731
                          x=randn(MICRO_BATCHES, 4, 6), y=randint(0, 3, MICRO_BATCHES, 4))
case("accumulation/sgd-divided", accumulation(True, "sgd"), **acc_inputs())
case("accumulation/sgd-undivided", accumulation(False, "sgd"), **acc_inputs())
case("accumulation/adam-divided", accumulation(True, "adam"), **acc_inputs())
case("accumulation/adam-undivided", accumulation(False, "adam"), **acc_inputs())


# ---- activation checkpointing: the same gradients as the plain forward ----------------------------
from torch.utils.checkpoint import checkpoint


def checkpointed_mlp(x, w1, b1, w2, b2, w3, b3):
    h = checkpoint(lambda t: F.linear(t, w1, b1).tanh(), x)
    h = checkpoint(lambda t: F.linear(t, w2, b2).relu(), h)
    return F.linear(h, w3, b3)


case("checkpoint/mlp-grad", checkpointed_mlp, x=randn(4, 6), w1=randn(5, 6), b1=randn(5), w2=randn(5, 5),
     b2=randn(5), w3=randn(2, 5), b3=randn(2), grad=True)


def checkpoint_shared_weight(x, w, v):
    """w is used by two checkpointed segments and outside them: three routes into one .grad."""
    seg = lambda t: (t @ w).sigmoid()  # noqa: E731
    h = checkpoint(seg, checkpoint(seg, x))
    return (h @ v).sum() + (w * w).sum()


case("checkpoint/shared-weight-grad", checkpoint_shared_weight, x=randn(3, 4), w=randn(4, 4), v=randn(4, 2),
     grad=True)
case("checkpoint/two-in-two-out-grad",
     lambda a, b: checkpoint(lambda p, q: (p * q, (p + q).exp()), a, b), a=randn(3, 2), b=randn(3, 2), grad=True)
