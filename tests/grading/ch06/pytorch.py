# Chapter 6's graded tests, PyTorch's side (see tests/grading/twins.py): torch.cuda.amp.GradScaler and
# torch.utils.checkpoint on the same parameters and gradients as the C++ tests.
#
# PyTorch 1.13 runs GradScaler only on CUDA; CPUGradScaler (tests/parity/cpu_grad_scaler.py) is its
# GradScaler class with its two kernels written for the CPU exactly as AmpKernels.cu computes them.
import torch.nn.functional as F
from cpu_grad_scaler import CPUGradScaler  # tests/parity/cpu_grad_scaler.py
from torch.utils.checkpoint import checkpoint


def scaler_for(params, **kw):
    scaler = CPUGradScaler(**kw)
    scaler._lazy_init_scale_growth_tracker(torch.device("cpu"))
    return scaler


# ---- ex1: unscale_ and the inf check --------------------------------------------------------------
def unscaled(grads, init_scale):
    """Each grads[i] as the gradient of a parameter of its shape; the gradients after unscale_, and
    whether step() then ran."""
    ps = [torch.zeros_like(g, requires_grad=True) for g in grads]
    opt = torch.optim.SGD(ps, lr=0.1)
    scaler = scaler_for(ps, init_scale=init_scale)
    for p, g in zip(ps, grads):
        p.grad = g.clone()
    scaler.unscale_(opt)
    out = {f"grad {i} after unscale_": p.grad.clone() for i, p in enumerate(ps)}
    found = sum(float(v) for v in scaler._per_optimizer_states[id(opt)]["found_inf_per_device"].values())
    out["step ran"] = found == 0
    return out


@case("unscale_: float32 and float64 gradients", a=randn(4, 5), b=randn(7, dtype="float64"))
def _(a, b):
    return unscaled([a * 65536, b * 1024], 65536.0)


@case("unscale_: an inv_scale that rounds", a=randn(6, 3), b=randn(3, dtype="float64"))
def _(a, b):
    # 1/3 is not a float32: the product is rounded once, in float32 (float64 for float64)
    return unscaled([a, b], 3.0)


@case("unscale_: a non-contiguous gradient is written through", g=randn(5, 4))
def _(g):
    w = torch.zeros(4, 5, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = scaler_for([w], init_scale=8.0)
    w.grad = g.t()  # a transposed view of g
    scaler.unscale_(opt)
    return {"grad after unscale_": w.grad.clone(), "the tensor it views": g.clone()}


@case("unscale_: inf and NaN skip the step", a=randn(3, 4), b=randn(5))
def _(a, b):
    inf_a = a.clone()
    inf_a[1, 2] = float("inf")
    nan_b = b.clone()
    nan_b[3] = float("nan")
    out = {}
    for label, grads, clean in (("inf", [inf_a, b], 1), ("nan", [a, nan_b], 0), ("-inf", [b, -inf_a], 0),
                                ("clean", [a, b], 1)):
        r = unscaled(grads, 4.0)
        out[f"{label}: step ran"] = r["step ran"]
        out[f"{label}: the finite gradient"] = r[f"grad {clean} after unscale_"]
    return out


@case("unscale_: a bfloat16 gradient is rounded once", a=randn(4, 4, dtype="bfloat16"))
def _(a):
    return unscaled([a], 3.0)


# ---- ex2: growth and backoff ----------------------------------------------------------------------
def scale_sequence(factors, steps=12, **kw):
    """SGD on one parameter whose gradient at step k is g * factors[k] (inf overflows, NaN too).
    The scale and the growth tracker after each update(), and whether each step ran."""
    def run(p, g):
        w = p.clone().requires_grad_(True)
        opt = torch.optim.SGD([w], lr=0.1)
        scaler = scaler_for([w], **kw)
        scales, trackers, ran = [], [], []
        for k in range(steps):
            opt.zero_grad()
            w.grad = g * factors[k]
            scaler.step(opt)
            found = scaler._per_optimizer_states[id(opt)]["found_inf_per_device"]
            ran.append(sum(float(v) for v in found.values()) == 0)
            scaler.update()
            scales.append(scaler.get_scale())
            trackers.append(scaler._get_growth_tracker())
        return {"scale after each update": torch.tensor(scales, dtype=torch.float64),
                "growth tracker after each update": [int(t) for t in trackers],
                "steps that ran": [int(r) for r in ran], "w": w.detach().clone()}
    return run


INF, NAN = float("inf"), float("nan")
FACTORS = [1, 1, 1, INF, 1, 1, NAN, 1, 1, 1, 1, 1]
EXACT = dict(rtol=0.0, atol=0.0)


@case("update: backoff after an overflow, growth after growth_interval clean steps", p=randn(3), g=randn(3))
def _(p, g):
    r = scale_sequence(FACTORS, init_scale=1024.0, growth_interval=3)(p, g)
    r["scale after each update"] = approx(r["scale after each update"], **EXACT)
    return r


@case("update: PyTorch's defaults over a few steps", p=randn(3), g=randn(3))
def _(p, g):
    r = scale_sequence(FACTORS)(p, g)
    r["scale after each update"] = approx(r["scale after each update"], **EXACT)
    return r


@case("update: other factors, in float32 arithmetic", p=randn(3), g=randn(3))
def _(p, g):
    r = scale_sequence(FACTORS, init_scale=1.0 / 3.0, growth_factor=1.1, backoff_factor=0.3, growth_interval=2)(p, g)
    r["scale after each update"] = approx(r["scale after each update"], **EXACT)
    return r


@case("update: the scale never grows to inf", p=randn(3), g=randn(3))
def _(p, g):
    r = scale_sequence([1] * 6, steps=6, init_scale=2.0 ** 127, growth_interval=1)(p, g)
    r["scale after each update"] = approx(r["scale after each update"], **EXACT)
    return r


# ---- ex3: checkpointing's backward ----------------------------------------------------------------
def mlp_grads(x, w1, b1, w2, b2, w3, b3, use_checkpoint):
    ps = [t.clone().requires_grad_(True) for t in (w1, b1, w2, b2, w3, b3)]
    w1, b1, w2, b2, w3, b3 = ps
    seg1 = lambda t: F.linear(t, w1, b1).tanh()  # noqa: E731
    seg2 = lambda t: F.linear(t, w2, b2).relu()  # noqa: E731
    # x needs no grad: the non-reentrant form, which (like kindling) still trains the weights inside
    h = checkpoint(seg1, x, use_reentrant=False) if use_checkpoint else seg1(x)
    h = checkpoint(seg2, h, use_reentrant=False) if use_checkpoint else seg2(h)
    loss = (F.linear(h, w3, b3) ** 2).sum()
    loss.backward()
    return {f"grad of {n}": p.grad for n, p in zip(("w1", "b1", "w2", "b2", "w3", "b3"), ps)} | {"loss": loss.detach()}


MLP = dict(x=randn(4, 6), w1=randn(5, 6), b1=randn(5), w2=randn(5, 5), b2=randn(5), w3=randn(2, 5), b3=randn(2))


@case("checkpoint: two segments of an MLP, data that needs no grad", **MLP)
def _(**kw):
    return mlp_grads(**kw, use_checkpoint=True)


@case("checkpoint: an input that needs grad and a weight shared with the outside", x=randn(3, 4), w=randn(4, 4),
      v=randn(4, 2))
def _(x, w, v):
    x = x.clone().requires_grad_(True)
    w = w.clone().requires_grad_(True)
    seg = lambda t: (t @ w).sigmoid()  # noqa: E731
    h = checkpoint(seg, checkpoint(seg, x))
    ((h @ v).sum() + (w * w).sum()).backward()
    return {"grad of x": x.grad, "grad of w": w.grad}


@case("checkpoint: two inputs, two outputs, one of them unused", a=randn(3, 2), b=randn(3, 2))
def _(a, b):
    a = a.clone().requires_grad_(True)
    b = b.clone().requires_grad_(True)
    p, q = checkpoint(lambda s, t: (s * t, (s + t).exp()), a, b)
    (p * p).sum().backward()
    out = {"grad of a (p used)": a.grad.clone(), "grad of b (p used)": b.grad.clone()}
    a.grad, b.grad = None, None
    p, q = checkpoint(lambda s, t: (s * t, (s + t).exp()), a, b)
    (p.sum() + 2 * q.sum()).backward()
    return out | {"grad of a (both used)": a.grad, "grad of b (both used)": b.grad}


@case("checkpoint: dropout sees the same random numbers twice", x=randn(8, 16), w=randn(16, 16))
def _(x, w):
    def run(use_checkpoint):
        torch.manual_seed(5)
        ww = w.clone().requires_grad_(True)
        seg = lambda t: F.dropout(t @ ww, 0.5, training=True).tanh()  # noqa: E731
        h = checkpoint(seg, x, use_reentrant=False) if use_checkpoint else seg(x)
        (h * h).sum().backward()
        return ww.grad, torch.rand(3)
    (g_plain, after_plain), (g_ckpt, after_ckpt) = run(False), run(True)
    return {"same gradient as without checkpoint": bool(torch.allclose(g_plain, g_ckpt, rtol=1e-5, atol=1e-6)),
            "the generator goes on as without checkpoint": bool(torch.equal(after_plain, after_ckpt))}


@case("checkpoint: a segment that changes its number of outputs", a=randn(3))
def _(a):
    return {"backward": raises("AutogradError")}
