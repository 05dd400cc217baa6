# Chapter 2's graded tests, PyTorch's side (see tests/grading/twins.py). Each @case twins the TEST_CASE
# of the same name in tests/grading/ch02/*.cpp: it makes the inputs and builds the same graph with
# PyTorch 1.13, whose autograd says what every gradient the C++ test reports must be. Nothing here is
# typed in by hand but inputs.
import numpy as np


def leaf(t):
    return t.clone().requires_grad_(True)


def grad_of(t):
    return "undefined" if t.grad is None else t.grad


# ---- ex1: the backward of mul, div, exp, tanh ----------------------------------------------------------
@case("mul: gradients of both inputs", a=randn(3, 4), b=randn(3, 4), g=randn(3, 4), x=randn(3, 4))
def _(a, b, g, x):
    a, b, x = leaf(a), leaf(b), leaf(x)
    (a * b).backward(g)
    (x * x).backward(g)
    return {"a.grad": a.grad, "b.grad": b.grad, "(x * x): x.grad": x.grad}


@case("div: gradients of both inputs", a=randn(3, 4), b=positive(3, 4), g=randn(3, 4))
def _(a, b, g):
    a, b = leaf(a), leaf(b)
    (a / b).backward(g)
    return {"a.grad": a.grad, "b.grad": b.grad}


@case("exp and tanh: gradients in float32 and float64", x=randn(2, 5), x64=randn(4, 3, dtype="float64"),
      g_x=randn(2, 5), g_x64=randn(4, 3, dtype="float64"), big=randn(6, scale=20.0))
def _(x, x64, g_x, g_x64, big):
    out = {}
    for name, t, g in (("x", x, g_x), ("x64", x64, g_x64)):
        a, b = leaf(t), leaf(t)
        a.exp().backward(g)
        b.tanh().backward(g)
        out[f"{name}.exp(): grad"] = a.grad
        out[f"{name}.tanh(): grad"] = b.grad
    big = leaf(big)
    big.tanh().sum().backward()
    out["big.tanh().sum(): grad"] = big.grad
    return out


@case("mul and div: only one input requires grad", a=randn(3, 4), c=positive(3, 4), g=randn(3, 4))
def _(a, c, g):
    out = {}
    for what, f in (("a * c", lambda a: a * c), ("c * a", lambda a: c * a), ("a / c", lambda a: a / c),
                    ("c / a", lambda a: c / a)):
        x = leaf(a)
        f(x).backward(g)
        out[f"{what}: a.grad"] = x.grad
    return out


@case("mul, div, exp, tanh: broadcast and non-contiguous inputs", a=randn(3, 1), b=randn(4), w=randn(4, 3))
def _(a, b, w):
    a, b, w = leaf(a), leaf(b), leaf(w)
    ((a * b) / (w.t().exp() + 1.0) + w.t().tanh() * a).sum().backward()
    return {"a.grad": a.grad, "b.grad": b.grad, "w.grad": w.grad}


@case("mul, div, exp, tanh: second derivatives (create_graph)", x=randn(3, 2, dtype="float64"),
      y=positive(3, 2, dtype="float64"))
def _(x, y):
    x, y = leaf(x), leaf(y)
    f = (x * x * y / (y * y + 1.0) + (x * y).tanh() + (x / y).exp()).sum()
    gx, gy = torch.autograd.grad(f, [x, y], create_graph=True)
    (gx * gy).sum().backward()
    return {"df/dx": gx.detach(), "df/dy": gy.detach(), "x.grad of (df/dx * df/dy).sum()": x.grad,
            "y.grad of (df/dx * df/dy).sum()": y.grad}


# ---- ex2: unbroadcast (sum_to) ----------------------------------------------------------------------------
def sum_to(g, shape):
    """PyTorch's own unbroadcast: the gradient of x.expand(g.shape) for an x of `shape`."""
    x = torch.zeros(shape, dtype=g.dtype, requires_grad=True)
    x.expand(g.shape).backward(g)
    return x.grad


def shp(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


SUM_TO = [((4,), (3, 4)), ((3, 1), (3, 4)), ((1, 4), (3, 4)), ((), (3, 4)), ((1,), (2, 3)), ((1, 1), (2, 3)),
          ((3, 1, 5), (2, 3, 4, 5)), ((4, 5), (2, 3, 4, 5)), ((1, 1, 1, 1), (2, 3, 4, 5)), ((3, 4), (3, 4)),
          ((2, 1, 1), (2, 1, 6)), ((6,), (6,))]


@case("sum_to: a gradient summed back to every shape that broadcasts to it",
      pairs="".join(" ".join(map(str, s)) + " - |" + " ".join(map(str, f)) + "\n" for s, f in SUM_TO),
      **{f"g_{i}": randn(*f) for i, (_, f) in enumerate(SUM_TO)})
def _(pairs, **g):
    out = {}
    for i, (s, f) in enumerate(SUM_TO):
        out[f"sum_to({shp(f)} -> {shp(s)})"] = sum_to(g[f"g_{i}"], s)
    return out


@case("sum_to: empty dimensions, 0-d shapes, float64 and non-contiguous gradients", e=randn(0, 3), z=value(2.5),
      d=randn(4, 5, dtype="float64"))
def _(e, z, d):
    return {"sum_to(e [0, 3], [3])": sum_to(e, (3,)), "sum_to(e [0, 3], [1, 3])": sum_to(e, (1, 3)),
            "sum_to(e [0, 3], [])": sum_to(e, ()), "sum_to(z [], [])": sum_to(z, ()),
            "sum_to(d.t() [5, 4], [5, 1])": sum_to(d.t(), (5, 1)), "sum_to(d.t() [5, 4], [4])": sum_to(d.t(), (4,)),
            "sum_to(d.t() [5, 4], [])": sum_to(d.t(), ())}


@case("broadcast ops: the gradient of each input has the input's shape", a=randn(3, 1), b=randn(4), g=randn(3, 4),
      x=randn(32, 10), bias=randn(10), p=randn(2, 1, 3), q=randn(4, 1), s=value(0.7))
def _(a, b, g, x, bias, p, q, s):
    a, b, x, bias, p, q, s = (leaf(t) for t in (a, b, x, bias, p, q, s))
    ((a + b) * g).sum().backward()
    (x + bias).tanh().sum().backward()
    ((p * q - s) / (s * s + 1.0)).sum().backward()
    return {"(a + b): a.grad": a.grad, "(a + b): b.grad": b.grad, "tanh(x + bias): bias.grad": bias.grad,
            "tanh(x + bias): x.grad": x.grad, "p.grad": p.grad, "q.grad": q.grad, "s.grad": s.grad}


@case("broadcast ops: expand, and an input broadcast twice", c=randn(3, 1), h=randn(2, 3, 5), u=randn(1, 4),
      v=randn(3, 4), w=randn(2, 3, 4))
def _(c, h, u, v, w):
    c, u = leaf(c), leaf(u)
    (c.expand(2, 3, 5) * h).sum().backward()
    ((u * v).sum() + (u + w).exp().sum()).backward()
    return {"c.expand(2, 3, 5): c.grad": c.grad, "u.grad": u.grad}


# ---- ex3: the backward of mm and bmm ----------------------------------------------------------------------
@case("mm: gradients of both inputs", a=randn(5, 3), b=randn(3, 4), g=randn(5, 4), x=randn(3, 3))
def _(a, b, g, x):
    a, b, x = leaf(a), leaf(b), leaf(x)
    a.mm(b).backward(g)
    x.mm(x).sum().backward()
    return {"a.grad": a.grad, "b.grad": b.grad, "x.mm(x).sum(): x.grad": x.grad}


@case("mm: transposed inputs, as a Linear layer's weight.t()", x=randn(6, 5), w=randn(4, 5), g=randn(6, 4),
      v=randn(5, 6))
def _(x, w, g, v):
    x, w, v = leaf(x), leaf(w), leaf(v)
    x.mm(w.t()).backward(g)
    out = {"x.mm(w.t()): x.grad": x.grad, "x.mm(w.t()): w.grad": w.grad.clone(),
           "x.mm(w.t()): w.grad is contiguous": w.grad.is_contiguous()}
    v.t().mm(w.t()).backward(g)
    out["v.t().mm(w.t()): v.grad"] = v.grad
    out["v.t().mm(w.t()): v.grad is contiguous"] = v.grad.is_contiguous()
    return out


@case("addmm: bias + x @ w.t(), what a Linear layer computes", bias=randn(4), x=randn(6, 5), w=randn(4, 5),
      g=randn(6, 4))
def _(bias, x, w, g):
    bias, x, w = leaf(bias), leaf(x), leaf(w)
    (torch.addmm(bias, x, w.t()).tanh() * g).sum().backward()
    return {"bias.grad": bias.grad, "x.grad": x.grad, "w.grad": w.grad,
            "grad_fn name": type(torch.addmm(bias, x, w.t()).grad_fn).__name__}


@case("bmm and batched matmul with broadcast batch dimensions", a=randn(2, 3, 4), b=randn(2, 4, 5), g=randn(2, 3, 5),
      p=randn(2, 3, 4, 5), q=randn(5, 2), r=randn(3, 1, 2, 4, scale=0.5), s=randn(5, 4, 3, scale=0.5))
def _(a, b, g, p, q, r, s):
    a, b, p, q, r, s = (leaf(t) for t in (a, b, p, q, r, s))
    torch.bmm(a, b).backward(g)
    p.matmul(q).tanh().sum().backward()
    r.matmul(s).exp().sum().backward()
    return {"bmm: a.grad": a.grad, "bmm: b.grad": b.grad, "[2, 3, 4, 5] @ [5, 2]: p.grad": p.grad,
            "[2, 3, 4, 5] @ [5, 2]: q.grad": q.grad, "[3, 1, 2, 4] @ [5, 4, 3]: r.grad": r.grad,
            "[3, 1, 2, 4] @ [5, 4, 3]: s.grad": s.grad}


@case("mm and bmm: only one input requires grad, in float64", a=randn(4, 3, dtype="float64"),
      c=randn(3, 2, dtype="float64"), g=randn(4, 2, dtype="float64"), d=randn(2, 3, 4, dtype="float64"),
      e=randn(2, 4, 3, dtype="float64"))
def _(a, c, g, d, e):
    a, d = leaf(a), leaf(d)
    a.mm(c).backward(g)
    torch.bmm(e.transpose(1, 2), d.transpose(1, 2)).sum().backward()
    return {"a.mm(c): a.grad": a.grad, "bmm(e^T, d^T): d.grad": d.grad}


@case("mm and bmm: second derivatives (create_graph)", a=randn(3, 4, dtype="float64"), b=randn(4, 2, dtype="float64"))
def _(a, b):
    a, b = leaf(a), leaf(b)
    f = (a.mm(b) * a.mm(b)).sum() + torch.bmm(a.unsqueeze(0), b.unsqueeze(0)).tanh().sum()
    ga, gb = torch.autograd.grad(f, [a, b], create_graph=True)
    (ga.sum() + (gb * gb).sum()).backward()
    return {"a.grad": a.grad, "b.grad": b.grad}


# ---- ex4: the engine's dependency count ---------------------------------------------------------------------
@case("backward: a chain and a diamond (a node used by two paths)", x=randn(4), w=randn(4))
def _(x, w):
    a, w = leaf(x), leaf(w)
    (a * w).tanh().sum().backward()
    y = leaf(x)
    h = y.tanh()
    (h * h.sigmoid() + h.exp()).sum().backward()
    return {"tanh(x * w).sum(): x.grad": a.grad, "h = tanh(x), (h * sigmoid(h) + exp(h)).sum(): x.grad": y.grad}


@case("backward: skip connections and a parameter used at every step", x=randn(5, dtype="float64"),
      w=randn(5, dtype="float64"))
def _(x, w):
    x, w = leaf(x), leaf(w)
    h = x.tanh()
    y = h
    for i in range(6):
        y = (y * w).tanh() + (h if i % 2 == 0 else y * 0.5)
    (y * y).sum().backward()
    return {"x.grad": x.grad, "w.grad": w.grad}


@case("backward: several roots at once, one of them inside the other's graph", x=randn(3), w=randn(3, scale=0.5),
      g=randn(3))
def _(x, w, g):
    x, w = leaf(x), leaf(w)
    y1 = (x * w).exp()
    y2 = (y1 * x).tanh().sum()
    torch.autograd.backward([y2, y1], [None, g])
    return {"x.grad": x.grad, "w.grad": w.grad}


@case("backward: a two-layer network, data that needs no gradient, a two-output node", x=randn(8, 5),
      w1=randn(5, 6), b1=randn(6), w2=randn(6, 3))
def _(x, w1, b1, w2):
    w1, b1, w2 = leaf(w1), leaf(b1), leaf(w2)
    logits = (x.matmul(w1) + b1).relu().matmul(w2)
    values, _ = logits.max(1)
    (torch.log_softmax(logits, 1).mean() + (values * values).sum()).backward()
    return {"w1.grad": w1.grad, "b1.grad": b1.grad, "w2.grad": w2.grad}


@case("backward: a 100,000-node chain (no recursion)", w=rand(2, low=0.5, high=1.5, dtype="float64"))
def _(w):
    w = leaf(w)
    y = w
    for i in range(100000):
        y = y * w if i % 2 == 0 else y.tanh()
    y.sum().backward()
    return {"w.grad": approx(w.grad, rtol=1e-6, atol=1e-9)}


# ---- ex5: gradcheck ----------------------------------------------------------------------------------------
class CubeT(torch.autograd.Function):
    right = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x


class Cube(CubeT):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x * x * 3.0)


class WrongCube(CubeT):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x * 2.0)


class WrongMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * b


class SlightlyOff(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, g):
        return g * 2.0002


def check(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3):
    """torch.autograd.gradcheck's verdict (fn: list of tensors -> tuple of tensors)."""
    return bool(torch.autograd.gradcheck(lambda *v: fn(list(v)), tuple(inputs), eps=eps, atol=atol, rtol=rtol,
                                         raise_exception=False))


def worst(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3):
    """The Jacobians torch's autograd (one-hot backward per output element) and central differences give, and
    the entry farthest outside the tolerance: what GradcheckResult describes."""
    outs = fn(inputs)
    checked = [k for k, t in enumerate(inputs) if t.requires_grad]
    best, max_err = None, 0.0
    for o, out in enumerate(outs):
        for k in checked:
            x = inputs[k]
            A = torch.zeros(out.numel(), x.numel(), dtype=torch.float64)
            for j in range(out.numel()):
                one_hot = torch.zeros(out.numel(), dtype=out.dtype)
                one_hot[j] = 1
                (g,) = torch.autograd.grad(fn(inputs)[o], [x], one_hot.view(out.shape), allow_unused=True)
                if g is not None:
                    A[j] = g.reshape(-1)
            N = torch.zeros_like(A)
            flat = x.detach().view(-1)
            with torch.no_grad():
                for e in range(x.numel()):
                    v = flat[e].item()
                    flat[e] = v + eps
                    fp = fn(inputs)[o].reshape(-1).clone()
                    flat[e] = v - eps
                    fm = fn(inputs)[o].reshape(-1).clone()
                    flat[e] = v
                    N[:, e] = (fp - fm) / (2 * eps)
            err = (A - N).abs()
            max_err = max(max_err, float(err.max()))
            excess = err - (atol + rtol * N.abs())
            j, e = divmod(int(excess.argmax()), x.numel())
            if best is None or float(excess[j, e]) > best[0]:
                best = (float(excess[j, e]), k, o, e, j, float(A[j, e]), float(N[j, e]))
    return best, max_err


def report_worst(what, fn, inputs):
    best, max_err = worst(fn, inputs)
    _, k, o, e, j, a, n = best
    return {f"{what}: ok": check(fn, inputs), f"{what}: input_index": k, f"{what}: output_index": o,
            f"{what}: input_element": e, f"{what}: output_element": j, f"{what}: analytical": approx(a, 1e-6, 1e-9),
            f"{what}: numerical": approx(n, 1e-6, 1e-6), f"{what}: max_abs_error": approx(max_err, 1e-6, 1e-6)}


@case("gradcheck: right backward formulas pass", x=randn(3, 4, dtype="float64"), y=positive(3, 4, dtype="float64"),
      w=randn(4, 2, dtype="float64"))
def _(x, y, w):
    xs = [leaf(x), leaf(y), leaf(w)]
    fns = {"Cube(x)": lambda v: (Cube.apply(v[0]),), "x.tanh() * y": lambda v: (v[0].tanh() * v[1],),
           "(x / y).exp()": lambda v: ((v[0] / v[1]).exp(),), "x.matmul(w)": lambda v: (v[0].matmul(v[2]),),
           "softmax(x * y, 1)": lambda v: (torch.softmax(v[0] * v[1], 1),)}
    out = {}
    for name, fn in fns.items():
        out[f"{name}: ok"] = check(fn, xs)
        out[f"{name}: max_abs_error"] = approx(worst(fn, xs)[1], 0, 1e-6)
    return out


@case("gradcheck: a wrong backward is caught, at its worst entry", x=randn(6, dtype="float64"),
      m=randn(2, 3, dtype="float64"))
def _(x, m):
    out = report_worst("WrongCube(x)", lambda v: (WrongCube.apply(v[0]),), [leaf(x)])
    out.update(report_worst("WrongCube(m).sum(1)", lambda v: (WrongCube.apply(v[0]).sum(1),), [leaf(m)]))
    return out


@case("gradcheck: several inputs and outputs, one gradient wrong", a=randn(4, dtype="float64"),
      c=randn(4, dtype="float64"), b=randn(4, dtype="float64"))
def _(a, c, b):
    xs = [leaf(a), c, leaf(b)]
    out = report_worst("two outputs", lambda v: (v[0].tanh() * v[1], WrongMul.apply(v[0], v[2])), xs)
    out["two outputs, right: ok"] = check(lambda v: (v[0].tanh() * v[1], v[0] * v[2]), xs)
    return out


@case("gradcheck: inputs come back unchanged, and no .grad is touched", x=randn(3, 4, dtype="float64"))
def _(x):
    x = leaf(x)
    ok = check(lambda v: (v[0].exp() * v[0],), [x.t()])
    return {"ok": ok, "x after gradcheck": x.detach(), "x.grad defined": x.grad is not None}


@case("gradcheck: outputs that are views of the input, and nan", x=randn(3, 4, dtype="float64"))
def _(x):
    xs = [leaf(x)]
    return {"x.t(): ok": check(lambda v: (v[0].t(),), xs), "x[1]: ok": check(lambda v: (v[0][1],), xs),
            "x.sqrt(): ok": check(lambda v: (v[0].sqrt(),), xs)}


@case("gradcheck: eps, atol and rtol are the ones asked for", x=randn(5, dtype="float64"))
def _(x):
    xs = [leaf(x)]
    off, cube = (lambda v: (SlightlyOff.apply(v[0]),)), (lambda v: (Cube.apply(v[0]),))
    return {"SlightlyOff, defaults: ok": check(off, xs),
            "SlightlyOff, atol 1e-7 rtol 1e-5: ok": check(off, xs, atol=1e-7, rtol=1e-5),
            "SlightlyOff, atol 1e-3 rtol 0: ok": check(off, xs, atol=1e-3, rtol=0),
            "Cube, eps 0.1: ok": check(cube, xs, eps=0.1),
            "Cube, eps 0.1 atol 0.02: ok": check(cube, xs, eps=0.1, atol=0.02)}
